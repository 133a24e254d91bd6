//! The crate's one stable sort.
//!
//! `slice::sort`, `sort_by` and `sort_by_key` are generic over the item and the comparison, so every
//! call site compiles its own copy of the standard library's stable sort (about 4 KB of wasm each:
//! the app carried 15 of them). Here the sorting itself happens once, on the positions `0..n`, with
//! the comparison behind a `&mut dyn FnMut`: one compiled copy of the standard sort however many
//! types are sorted, plus a few bytes per call site (the comparison and [`permute`]).
//!
//! The order is the standard library's, exactly: a stable sort under a comparison that is a total
//! order has one possible result, and the positions are sorted by comparing the items they hold, so
//! equal items keep their order (the tests check it against `sort_by` on random input full of ties).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sort `v` stably by `cmp`: the same order as `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = positions(v.len(), &mut |i, j| cmp(&v[i], &v[j]));
    permute(v, order);
}

/// Sort `v` stably by `key`: the same order as `v.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sort `v` stably: the same order as `v.sort()`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The map of `items`, as `collect` makes it (a key given twice keeps its last value), built by
/// inserting: `collect` into a `BTreeMap` sorts the items first, with a copy of the standard stable
/// sort for each key and value type.
pub fn map<K: Ord, V>(items: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut m = BTreeMap::new();
    m.extend(items);
    m
}

/// The set of `items`, as `collect` makes it, built by inserting (see [`map`]).
pub fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut s = BTreeSet::new();
    s.extend(items);
    s
}

/// The positions `0..n` in the stable order of `cmp` (which compares the items at two positions).
/// Not generic: the one compiled copy of the standard stable sort.
fn positions(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| cmp(i, j));
    order
}

/// Put the item at position `order[k]` at position `k`, for every `k`, by swaps along each cycle
/// of the permutation (`order` marks the positions done).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut here = start;
        // Position `here` takes the item now at `order[here]`, which has not moved yet (it is
        // further along the cycle), until the cycle comes back to `start`, whose item is then
        // already at `here`.
        while order[here] != start && order[here] != here {
            let from = order[here];
            v.swap(here, from);
            order[here] = here;
            here = from;
        }
        order[here] = here;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Items with few distinct keys (many ties), tagged with where they started: the same order
        /// as the standard stable sort, ties included.
        #[test]
        fn the_same_order_as_the_standard_sort(keys in prop::collection::vec(0u8..6, 0..300)) {
            let items: Vec<(u8, usize)> = keys.iter().enumerate().map(|(i, &k)| (k, i)).collect();
            let (mut ours, mut std) = (items.clone(), items.clone());
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            std.sort_by_key(|a| a.0);
            prop_assert_eq!(&ours, &std);
            let (mut ours, mut std) = (items.clone(), items.clone());
            sort_by_key(&mut ours, |a| std::cmp::Reverse(a.0));
            std.sort_by_key(|a| std::cmp::Reverse(a.0));
            prop_assert_eq!(&ours, &std);
            let (mut ours, mut std) = (keys.clone(), keys);
            sort(&mut ours);
            std.sort();
            prop_assert_eq!(ours, std);
        }

        /// Texts (owned, so a swap moves heap pointers) by a key that ties often.
        #[test]
        fn texts_by_length(words in prop::collection::vec("[a-c]{0,4}", 0..120)) {
            let (mut ours, mut std) = (words.clone(), words);
            sort_by_key(&mut ours, |w| w.len());
            std.sort_by_key(|w| w.len());
            prop_assert_eq!(ours, std);
        }
    }

    proptest! {
        /// Keys given several times: the map and set `collect` makes.
        #[test]
        fn map_and_set_as_collect_makes_them(items in prop::collection::vec((0u8..20, 0u32..1000), 0..100)) {
            prop_assert_eq!(map(items.iter().copied()), items.iter().copied().collect::<BTreeMap<_, _>>());
            prop_assert_eq!(set(items.iter().map(|p| p.0)), items.iter().map(|p| p.0).collect::<BTreeSet<_>>());
        }
    }

    #[test]
    fn every_permutation_of_five() {
        // Every order of 0..5 (each cycle shape of `permute`), sorted back.
        let mut v: Vec<u32> = (0..5).collect();
        let mut count = 0;
        loop {
            let mut w = v.clone();
            sort(&mut w);
            assert_eq!(w, (0..5).collect::<Vec<_>>(), "{v:?}");
            count += 1;
            // The next permutation in lexicographic order.
            let Some(i) = (0..4).rev().find(|&i| v[i] < v[i + 1]) else { break };
            let j = (i + 1..5).rev().find(|&j| v[j] > v[i]).unwrap();
            v.swap(i, j);
            v[i + 1..].reverse();
        }
        assert_eq!(count, 120);
    }
}
