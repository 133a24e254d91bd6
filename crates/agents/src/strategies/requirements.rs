//! The numbered requirements of the instruction-following statements, read from their English:
//! which value each names, the one line of Python it asks for, and the functions it applies in.
//! Every wording states its line exactly (a whole statement in backticks, or its parts: the
//! expression, the name, the literal), so each is read back into that line.

use std::collections::BTreeMap;

/// A requirement's sort, in the order the lines go in a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Sort {
    Comment,
    Assert,
    Print,
    Temp,
}

/// A condition on the functions a requirement applies in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    NameBefore(String),
    NameLength(usize),
    NameHas(char),
    CallsNone,
    CallsSeveral,
    CalledBySeveral,
}

/// What a condition reads of a function.
pub struct Place<'a> {
    pub name: &'a str,
    /// Different functions of the file it calls.
    pub callees: usize,
    /// Different functions of the file that call it (`main()` counts).
    pub callers: usize,
}

impl Condition {
    fn read(words: &str) -> Option<Condition> {
        let w = words.trim();
        let tick = |s: &str| s.split('`').nth(1).map(str::to_string);
        if w.starts_with("whose name sorts before") {
            tick(w).map(Condition::NameBefore)
        } else if w == "whose name is a single letter" {
            Some(Condition::NameLength(1))
        } else if let Some(rest) = w.strip_prefix("whose name is exactly ") {
            rest.split(' ').next()?.parse().ok().map(Condition::NameLength)
        } else if w.starts_with("whose name contains the letter") {
            tick(w)?.chars().next().map(Condition::NameHas)
        } else if w.starts_with("that calls no other function") {
            Some(Condition::CallsNone)
        } else if w.starts_with("that calls two or more") {
            Some(Condition::CallsSeveral)
        } else if w.starts_with("that two or more different functions") {
            Some(Condition::CalledBySeveral)
        } else {
            None
        }
    }

    pub fn holds(&self, p: &Place) -> bool {
        match self {
            Condition::NameBefore(x) => p.name < x.as_str(),
            Condition::NameLength(n) => p.name.chars().count() == *n,
            Condition::NameHas(c) => p.name.contains(*c),
            Condition::CallsNone => p.callees == 0,
            Condition::CallsSeveral => p.callees >= 2,
            Condition::CalledBySeveral => p.callers >= 2,
        }
    }

    /// Does deciding it need the function's callers?
    pub fn needs_callers(&self) -> bool {
        matches!(self, Condition::CalledBySeveral)
    }
}

/// One numbered requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    pub number: usize,
    pub var: String,
    pub sort: Sort,
    /// The line, without indentation.
    pub line: String,
    pub condition: Option<Condition>,
}

/// The statement's values and requirements.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requirements {
    /// The values, in index order (`mult1`, `mult2`, …).
    pub values: Vec<String>,
    pub list: Vec<Requirement>,
    /// Numbers of requirements whose wording could not be read (they are left out).
    pub unread: Vec<usize>,
}

/// The backticked parts of a text.
fn ticks(s: &str) -> Vec<&str> {
    s.split('`').skip(1).step_by(2).collect()
}

/// The text with its backticked parts removed (what is left holds the quoted literals).
fn unticked(s: &str) -> String {
    s.split('`').step_by(2).collect::<Vec<_>>().join("")
}

/// The first Python string literal (`'…'` or `"…"`) in a text, as written.
fn string_literal(s: &str) -> Option<&str> {
    let start = s.find(['\'', '"'])?;
    let q = s[start..].chars().next()?;
    let mut escaped = false;
    for (i, c) in s[start + 1..].char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == q && !escaped => return Some(&s[start..start + 1 + i + 1]),
            _ => escaped = false,
        }
    }
    None
}

/// The text a literal stands for (the pools' texts hold no quote or backslash).
fn literal_text(lit: &str) -> String {
    lit[1..lit.len() - 1].replace("\\'", "'").replace("\\\"", "\"").replace("\\\\", "\\")
}

/// The sort of a whole line.
fn sort_of(line: &str) -> Option<Sort> {
    if line.starts_with("# ") {
        Some(Sort::Comment)
    } else if line.starts_with("assert ") {
        Some(Sort::Assert)
    } else if line.starts_with("print(") {
        Some(Sort::Print)
    } else {
        let (target, _) = line.split_once(" = ")?;
        (!target.is_empty() && target.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(Sort::Temp)
    }
}

/// The line one requirement's wording asks for.
fn line_of(var: &str, desc: &str) -> Option<(Sort, String)> {
    let parts = ticks(desc);
    // A wording that quotes the whole line.
    if let Some(line) = parts.iter().find(|p| sort_of(p).is_some() && **p != "#") {
        return Some((sort_of(line)?, line.to_string()));
    }
    let d = desc.trim();
    if d.starts_with("store ") || d.starts_with("compute ") {
        // "store `R` in a new variable `N` …", "compute `R` into the local `N`; …"
        let (rhs, new) = (parts.first()?, parts.get(1)?);
        return Some((Sort::Temp, format!("{new} = {rhs}")));
    }
    if d.starts_with("assign ") {
        // "assign … to `N`, written exactly as `R`, without updating …"
        let new = ticks(d.split(", written exactly as").next()?).last()?.to_string();
        let rhs = ticks(d.split("written exactly as").nth(1)?).first()?.to_string();
        return Some((Sort::Temp, format!("{new} = {rhs}")));
    }
    if d.starts_with("assert that ") {
        let (op, rest) = if let Some((_, r)) = d.split_once("is strictly less than ") {
            ("<", r)
        } else if let Some((_, r)) = d.split_once("is strictly greater than ") {
            (">", r)
        } else {
            ("!=", d.split_once("is never equal to ")?.1)
        };
        let literal = rest.trim().strip_suffix('.').unwrap_or(rest.trim());
        return Some((Sort::Assert, format!("assert {var} {op} {literal}")));
    }
    if d.starts_with("check with an assert statement") || d.starts_with("make the function raise an AssertionError") {
        let test = parts.iter().rev().find(|p| p.contains(' '))?;
        return Some((Sort::Assert, format!("assert {test}")));
    }
    if d.starts_with("put a `#` comment reading ") {
        return Some((Sort::Comment, format!("# {}", parts.get(1)?)));
    }
    // The prints: a literal text before or after the value.
    let rest = unticked(d);
    let text = literal_text(string_literal(&rest)?);
    let prefix = if d.starts_with("print `") {
        d.contains("right after the text")
    } else if d.starts_with("print one f-string made of ") {
        d.contains("and then the value of")
    } else if d.starts_with("log `") {
        d.contains("in front of it")
    } else if d.starts_with("output ") {
        // "output T immediately followed by `v`" against "output `v` immediately followed by T".
        !d.starts_with("output `")
    } else {
        return None;
    };
    let fstring = if prefix { format!("{text}{{{var}}}") } else { format!("{{{var}}}{text}") };
    Some((Sort::Print, format!("print(f{})", python_quote(&fstring))))
}

/// A Python string literal, as the generator writes one (single quotes unless the text has one).
fn python_quote(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

impl Requirements {
    /// Read the values (`This task has K values, `a`, `b` and `c`.`) and the numbered requirements
    /// after them. `None` when the statement has none.
    pub fn read(statement: &str) -> Option<Requirements> {
        let at = statement.find("\nThis task has ")?;
        let tail = &statement[at + 1..];
        let (head, list) = tail.split_once('\n')?;
        let values: Vec<String> = ticks(head.split(". Here are").next()?).iter().map(|s| s.to_string()).collect();
        if values.is_empty() {
            return None;
        }
        let mut out = Requirements { values, ..Requirements::default() };
        for line in list.lines() {
            let Some((num, rest)) = line.split_once(". `") else { continue };
            let Ok(number) = num.trim().parse::<usize>() else { continue };
            let Some((var, after)) = rest.split_once('`') else { continue };
            // "`v`: desc" or "`v`, only in the functions WORDS: desc".
            let (condition, desc) = match after.strip_prefix(": ") {
                Some(desc) => (None, desc),
                None => {
                    let Some(c) = after.strip_prefix(", only in the functions ") else {
                        out.unread.push(number);
                        continue;
                    };
                    let Some((words, desc)) = c.split_once(": ") else {
                        out.unread.push(number);
                        continue;
                    };
                    match Condition::read(words) {
                        Some(cond) => (Some(cond), desc),
                        None => {
                            out.unread.push(number);
                            continue;
                        }
                    }
                }
            };
            match line_of(var, desc) {
                Some((sort, line)) => {
                    out.list.push(Requirement { number, var: var.to_string(), sort, line, condition })
                }
                None => out.unread.push(number),
            }
        }
        Some(out)
    }

    /// The lines a function carrying the values gets, in the prescribed order: comments, asserts,
    /// prints, temporaries; within a sort, by value index, then by number.
    pub fn lines_for(&self, place: &Place) -> Vec<String> {
        let index: BTreeMap<&str, usize> = self.values.iter().enumerate().map(|(i, v)| (v.as_str(), i)).collect();
        let mut chosen: Vec<&Requirement> =
            self.list.iter().filter(|r| r.condition.as_ref().is_none_or(|c| c.holds(place))).collect();
        chosen.sort_by_key(|r| (r.sort, index.get(r.var.as_str()).copied().unwrap_or(usize::MAX), r.number));
        chosen.into_iter().map(|r| r.line.clone()).collect()
    }

    /// Only the first `k` requirements of the list, as a reader who stops there keeps them.
    pub fn first(mut self, k: usize) -> Requirements {
        self.list.retain(|r| r.number <= k);
        self.unread.retain(|n| *n <= k);
        self
    }

    /// Whether some requirement's condition needs a function's callers.
    pub fn needs_callers(&self) -> bool {
        self.list.iter().any(|r| r.condition.as_ref().is_some_and(Condition::needs_callers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(desc: &str) -> String {
        line_of("v3", desc).map(|(_, l)| l).unwrap_or_else(|| format!("UNREAD: {desc}"))
    }

    #[test]
    fn every_wording_reads_back_to_its_line() {
        assert_eq!(one("store `v3 + 0.4` in a new variable `v3_temp` and leave `v3` unchanged."), "v3_temp = v3 + 0.4");
        assert_eq!(
            one("compute `v3 * 0.2` into the local `copy_v3`; `v3` itself must not change."),
            "copy_v3 = v3 * 0.2"
        );
        assert_eq!(one("add the line `v3_copy = '0' + v3 + '9'`."), "v3_copy = '0' + v3 + '9'");
        assert_eq!(
            one("keep `v3` divided by 0.9 in a temporary named `v3_stash` (`v3_stash = v3 / 0.9`); `v3` stays as it is."),
            "v3_stash = v3 / 0.9"
        );
        assert_eq!(
            one(
                "assign the sum of `v3` and 0.8 to `current_v3`, written exactly as `v3 + 0.8`, without updating `v3`."
            ),
            "current_v3 = v3 + 0.8"
        );
        assert_eq!(one("assert that `v3` is strictly less than 100."), "assert v3 < 100");
        assert_eq!(one("assert that `v3` is strictly greater than ','."), "assert v3 > ','");
        assert_eq!(one("assert that `v3` is never equal to -20."), "assert v3 != -20");
        assert_eq!(one("add the line `assert v3 != 'G'`."), "assert v3 != 'G'");
        assert_eq!(
            one("check with an assert statement that `v3` is strictly less than ':' (`v3 < ':'`)."),
            "assert v3 < ':'"
        );
        assert_eq!(one("make the function raise an AssertionError unless `v3 > -75` holds."), "assert v3 > -75");
        assert_eq!(
            one("guard the value with `assert v3 < 150`, so that `v3` is strictly less than 150."),
            "assert v3 < 150"
        );
        assert_eq!(one("print `v3` right after the text 'Value: ', with an f-string."), "print(f'Value: {v3}')");
        assert_eq!(
            one("print `v3` followed by the text ' (computed)', with an f-string."),
            "print(f'{v3} (computed)')"
        );
        assert_eq!(one("add the line `print(f'now: {v3}')`."), "print(f'now: {v3}')");
        assert_eq!(one("print one f-string made of '>> ' and then the value of `v3`."), "print(f'>> {v3}')");
        assert_eq!(one("print one f-string made of the value of `v3` and then ' (done)'."), "print(f'{v3} (done)')");
        assert_eq!(
            one("log `v3` with a print call whose f-string puts '[mult] ' in front of it."),
            "print(f'[mult] {v3}')"
        );
        assert_eq!(
            one("log `v3` with a print call whose f-string puts ' #checkpoint' after it."),
            "print(f'{v3} #checkpoint')"
        );
        assert_eq!(
            one("output 'Output: ' immediately followed by `v3`, in a single print of an f-string."),
            "print(f'Output: {v3}')"
        );
        assert_eq!(
            one("output `v3` immediately followed by ' <- value', in a single print of an f-string."),
            "print(f'{v3} <- value')"
        );
        assert_eq!(one("write the comment `# NOTE: v3` on a line of its own."), "# NOTE: v3");
        assert_eq!(one("add the comment line `# trace: v3`, exactly as given."), "# trace: v3");
        assert_eq!(one("put a `#` comment reading `computed: v3` in the function body."), "# computed: v3");
        assert_eq!(one("include the comment `# pass-through: v3` word for word."), "# pass-through: v3");
        assert_eq!(one("mark the function with the exact comment `# verify: v3`."), "# verify: v3");
    }

    #[test]
    fn the_list_and_its_conditions_are_read_and_ordered() {
        let statement = "Rules.\n\nThis task has 2 values, `key1` and `key2`. Here are its 4 requirements on the return value keys, numbered and in no particular order:\n\n1. `key2`: put a `#` comment reading `computed: key2` in the function body.\n2. `key1`: add the line `assert key1 != 'G'`.\n3. `key2`, only in the functions whose name is a single letter: add the line `x = key2 + '1'`.\n4. `key1`: add the line `key1_checkpoint = '3' + key1 + '7'`.\n";
        let r = Requirements::read(statement).unwrap();
        assert_eq!(r.values, ["key1", "key2"]);
        assert!(r.unread.is_empty(), "{:?}", r.unread);
        let short = Place { name: "h", callees: 0, callers: 1 };
        let long = Place { name: "ab", callees: 0, callers: 1 };
        assert_eq!(
            r.lines_for(&short),
            ["# computed: key2", "assert key1 != 'G'", "key1_checkpoint = '3' + key1 + '7'", "x = key2 + '1'"]
        );
        assert_eq!(r.lines_for(&long).len(), 3);
        assert!(Requirements::read("No list here.").is_none());
    }
}
