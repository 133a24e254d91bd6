//! The playground in headless Chromium: the link codec (round trips, malformed links, the nearest
//! valid task) and the app itself rendered into the page (a link's task is shown, the address bar
//! is followed, a bad link gets a message).
//!
//! Run with `cargo test --target wasm32-unknown-unknown --test wasm wasm_app::`.

#![cfg(target_arch = "wasm32")]

use cabrito::web::{route, route::Route};
use cabrito_gen::spec::{Axis, Domain, Kind, MAX_N};
use cabrito_gen::task::{generate, task_hash};
use cabrito_gen::TaskSpec;
use gloo::timers::future::TimeoutFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// A small deterministic generator for test cases (no OS randomness in wasm tests).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random valid spec (kinds are built for some domains and axes only).
fn random_spec(r: &mut Lcg) -> TaskSpec {
    loop {
        let s = random_spec_unchecked(r);
        if s.validate().is_ok() {
            return s;
        }
    }
}

fn random_spec_unchecked(r: &mut Lcg) -> TaskSpec {
    let kind = Kind::ALL[r.below(Kind::ALL.len() as u64) as usize];
    let mut s = TaskSpec::new(
        kind,
        Domain::ALL[r.below(Domain::ALL.len() as u64) as usize],
        Axis::ALL[r.below(Axis::ALL.len() as u64) as usize],
        kind.min_edit() + r.below(300) as u32,
        if r.below(4) == 0 { u64::MAX - r.below(10) } else { r.below(1_000_000) },
    );
    if r.below(5) == 0 {
        s.n_init = Some(1 + r.below(MAX_N as u64) as u32);
    }
    if r.below(5) == 0 {
        s.n_edit = Some(kind.min_edit() + r.below(50) as u32);
    }
    s
}

fn spec(query: &str) -> TaskSpec {
    TaskSpec::from_pairs(query.split('&').map(|p| p.split_once('=').expect("key=value"))).expect("valid spec")
}

#[wasm_bindgen_test]
fn links_round_trip() {
    let mut r = Lcg(7);
    for _ in 0..2000 {
        let s = random_spec(&mut r);
        let f = route::fragment(&s);
        assert!(f.starts_with("#/task?v=1"), "{f}");
        assert_eq!(route::parse(&f), Route::Task(s.clone()), "{f}");
        // The `#` is optional, and percent-encoded values read the same.
        assert_eq!(route::parse(&f[1..]), Route::Task(s.clone()), "{f}");
        let encoded = f.replace('=', "=%20").replace("_", "%5F");
        assert_eq!(route::parse(&encoded), Route::Task(s), "{encoded}");
    }
    assert_eq!(route::parse(""), Route::Gallery);
    assert_eq!(route::parse("#"), Route::Gallery);
    assert_eq!(route::parse("#/"), Route::Gallery);
    assert_eq!(route::parse("#/gallery"), Route::Gallery);
    assert_eq!(route::parse("#/task"), Route::Task(TaskSpec::default()));
    let s = spec("v=1&kind=dead_code&axis=search&seed=4");
    assert_eq!(route::parse(&route::scale_fragment(&s)), Route::Scale(s.clone()));
    let rows = cabrito::web::scale::rows(&s);
    assert_eq!(rows.iter().map(|r| r.spec.n).collect::<Vec<_>>(), cabrito_gen::spec::PAPER_SIZES);
    // On the search axis n is the untouched graph: the functions grow, the edit set does not.
    assert!(rows.windows(2).all(|w| w[0].sizes.functions < w[1].sizes.functions), "functions grow with n");
    assert_eq!(rows[0].sizes, generate(&rows[0].spec).unwrap().sizes);
    // The embed flag is not part of the spec.
    assert_eq!(route::parse("#/task?v=1&n=9&embed=1"), Route::Task(spec("v=1&n=9")));
    assert!(route::embed_requested("?embed=1", "#/task?v=1"));
    assert!(route::embed_requested("", "#/task?v=1&embed=1"));
    assert!(!route::embed_requested("", "#/task?v=1&embed=0"));
    assert!(!route::embed_requested("?x=embed", "#/task?v=1"));
}

fn bad(fragment: &str) -> (String, TaskSpec) {
    match route::parse(fragment) {
        Route::BadLink { message, nearest } => (message, nearest),
        other => panic!("{fragment} was accepted as {other:?}"),
    }
}

#[wasm_bindgen_test]
fn bad_links_get_a_reason_and_the_nearest_task() {
    let cases: &[(&str, &str, &str)] = &[
        ("#/task?v=1&kind=nope&n=7&seed=3", "unknown kind 'nope'", "v=1&n=7&seed=3"),
        ("#/task?v=1&n=0&seed=5", "out of range", "v=1&n=1&seed=5"),
        ("#/task?v=1&n=99999&domain=string", "out of range", "v=1&domain=string&n=2000"),
        ("#/task?v=1&n=-4", "must be an integer", "v=1&n=1"),
        ("#/task?v=1&n=123456789012345678901234567890", "must be an integer", "v=1&n=2000"),
        ("#/task?v=1&seed=abc&n=9", "must be an integer", "v=1&n=9"),
        ("#/task?v=1&seed=1e5", "must be an integer", "v=1"),
        ("#/task?v=1&n=5&n=6", "given twice", "v=1&n=5"),
        ("#/task?v=1&kind=cache_function&n=1", "at least 2", "v=1&kind=cache_function"),
        ("#/task?v=7&kind=dead_code", "not served", "v=1&kind=dead_code"),
        ("#/task?v=1&axis=instructions&kind=dead_code&seed=4", "has no instructions axis", "v=1&kind=dead_code&seed=4"),
        ("#/task?v=1&axis=runtime&n=20000&seed=4", "out of range", "v=1&axis=runtime&n=10000&seed=4"),
        ("#/task?v=1&kind=merge_codebases&domain=string&seed=4", "does not apply", "v=1&kind=merge_codebases&seed=4"),
        ("#/task?v=1&colour=red&seed=4", "unknown key 'colour'", "v=1&seed=4"),
        ("#/task?v=1&garbage&n=8", "not of the form key=value", "v=1&n=8"),
        ("#/gallery/nothing", "there is no page", "v=1"),
    ];
    for (fragment, says, nearest) in cases {
        let (message, got) = bad(fragment);
        assert!(message.contains(says), "{fragment}: message '{message}' should say '{says}'");
        assert!(!message.contains('\n'), "{fragment}: the message is one line");
        assert_eq!(got, spec(nearest), "{fragment}: nearest task");
    }
}

#[wasm_bindgen_test]
fn malformed_links_never_panic() {
    // Random strings over the characters links are made of, and some bytes they are not.
    let alphabet: Vec<char> = "#/?&=%vkindomaxsedtrcl_0123456789-+aé€ \t%2G%ZZ%E2%82".chars().collect();
    let mut r = Lcg(11);
    for i in 0..3000 {
        let len = r.below(60) as usize;
        let mut s: String = if i % 2 == 0 { "#/task?".into() } else { String::new() };
        for _ in 0..len {
            s.push(alphabet[r.below(alphabet.len() as u64) as usize]);
        }
        let shown = match route::parse(&s) {
            Route::Gallery | Route::Results | Route::Traces => TaskSpec::default(),
            Route::Task(spec) | Route::Scale(spec) | Route::Agents(spec) => spec,
            Route::BadLink { message, nearest } => {
                assert!(!message.is_empty(), "{s:?}: an empty message");
                assert!(message.chars().count() < 400, "{s:?}: message too long: {message}");
                nearest
            }
        };
        // Whatever the page shows is a valid spec (generating it is covered by the tests below).
        assert!(shown.validate().is_ok(), "{s:?}: shows an invalid spec {shown}");
    }
    // A huge link: the reason quotes a bounded piece of it.
    let huge = format!("#/task?v=1&{}", "x".repeat(100_000));
    let (message, _) = bad(&huge);
    assert!(message.chars().count() < 200, "{}", message.len());
}

#[wasm_bindgen_test]
fn controls_edit_one_knob() {
    let s = spec("v=1&kind=dead_code&n=50&seed=3");
    let pairs = route::with_value(&s, "seed", "9");
    let next = TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).unwrap();
    assert_eq!(next, spec("v=1&kind=dead_code&n=50&seed=9"));
    // An empty value removes an optional knob.
    let with = spec("v=1&n_init=40");
    let pairs = route::with_value(&with, "n_init", "");
    assert_eq!(TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).unwrap(), TaskSpec::default());
}

#[wasm_bindgen_test]
fn highlighting_keeps_every_character() {
    use cabrito::web::code::{function_lines, tokens};
    let task = generate(&spec("v=1&kind=add_return_value&domain=string&n=20&seed=6")).unwrap();
    for line in task.starter_code.lines().chain(task.solution_code.lines()) {
        let joined: String = tokens(line).into_iter().map(|(_, t)| t).collect();
        assert_eq!(joined, line);
    }
    let odd =
        ["x = 'unclosed", "s = f\"{a!r:>3}\" # c", "def f(): return 'a\\'b'", "é = 1e-3_0 + 0x1F", "#", "'", "\\"];
    for line in odd {
        let joined: String = tokens(line).into_iter().map(|(_, t)| t).collect();
        assert_eq!(joined, line);
    }
    let kinds: Vec<&str> = tokens("def ab(val: str) -> str:  # x").into_iter().map(|(c, _)| c).collect();
    assert_eq!(kinds.first(), Some(&"tok-keyword"));
    assert!(kinds.contains(&"tok-def") && kinds.contains(&"tok-comment"), "{kinds:?}");
    // Every function of the starter is found, and its range starts at its def.
    let ranges = function_lines(&task.starter_code);
    let lines: Vec<&str> = task.starter_code.lines().collect();
    for name in task.roles.keys() {
        let (_, a, b) = ranges.iter().find(|(n, _, _)| n == name).unwrap_or_else(|| panic!("no range for {name}"));
        assert!(lines[*a].starts_with(&format!("def {name}(")), "{name}: {}", lines[*a]);
        assert!(b > a && lines[*a + 1..*b].iter().all(|l| l.starts_with("    ")), "{name}");
    }
}

#[wasm_bindgen_test]
fn static_verdicts_in_the_browser() {
    use cabrito::web::app::show;
    use cabrito::web::checker::{answer_value, read_reply, to_value};
    use cabrito_check::protocol::checker::Request;
    let check_request = |id: u64, shown: &cabrito::web::app::Shown, response: &str| {
        Request::for_task(id, &shown.generated.task, response)
    };
    use cabrito_check::protocol::checker::Reply;
    use wasm_bindgen::{JsCast, JsValue};
    // What the checker worker answers to the page's request, through the same structured values
    // both ways.
    let verdict = |shown: &cabrito::web::app::Shown, id: u64, response: &str| -> Reply {
        let reply = read_reply(answer_value(to_value(&check_request(id, shown, response)), &|| None));
        match &reply {
            Reply::Verdict { id: got, .. } | Reply::Unreadable { id: got, .. } => assert_eq!(*got, id),
            other => panic!("reply {other:?} to request {id}"),
        }
        reply
    };
    for query in ["v=1&kind=dead_code&n=6&seed=1", "v=1&kind=extract_helper&domain=array&n=6&seed=2"] {
        let shown = show(&spec(query)).unwrap();
        let task = &shown.generated.task;
        let Reply::Verdict { items, .. } = verdict(&shown, 1, &task.solution_code) else {
            panic!("{query}: reference unread")
        };
        let failing: Vec<_> = items.iter().filter(|i| i.must_have && !i.passed).collect();
        assert!(Reply::passed(&items) && failing.is_empty(), "{query}: the reference fails {failing:?}");
        let Reply::Verdict { items, .. } = verdict(&shown, 2, &task.starter_code) else {
            panic!("{query}: starter unread")
        };
        assert!(!Reply::passed(&items), "{query}: the starter passes");
        // Unreadable or broken answers never pass (and never panic).
        assert!(matches!(verdict(&shown, 3, "   "), Reply::Unreadable { .. }), "{query}: an empty answer was read");
        if let Reply::Verdict { items, .. } = verdict(&shown, 4, "def broken(:\n    return 1\n") {
            assert!(!Reply::passed(&items), "{query}: a file that does not parse passes");
        }
    }
    // A message that is not a request gets a reason, not a panic: values of every wrong shape, as
    // the browser's JSON.parse makes them, and values JSON cannot hold.
    let shown = show(&spec("v=1&kind=dead_code&n=5&seed=3")).unwrap();
    let good = to_value(&check_request(1, &shown, "x = 1\n"));
    let with = |key: &str, value: JsValue| {
        let v = js_sys::Object::assign(&js_sys::Object::new(), good.unchecked_ref());
        js_sys::Reflect::set(&v, &key.into(), &value).unwrap();
        JsValue::from(v)
    };
    let parse = |text: &str| js_sys::JSON::parse(text).unwrap();
    let mut cases: Vec<JsValue> = [
        "null",
        "[1,2]",
        "\"text\"",
        "{}",
        "{\"id\": 1}",
        r#"{"id":-1,"kind":"dead_code","domain":"math","starter":"","reference":"","response":""}"#,
        r#"{"id":1.5,"kind":"dead_code","domain":"math","starter":"","reference":"","response":""}"#,
        r#"{"id":1,"kind":"teleport","domain":"math","starter":"","reference":"","response":""}"#,
        r#"{"id":1,"kind":"dead_code","domain":"math","starter":7,"reference":"","response":""}"#,
    ]
    .iter()
    .map(|t| parse(t))
    .collect();
    cases.push(parse(&format!("{}{}", "[".repeat(100_000), "]".repeat(100_000))));
    cases.push(parse(&format!("{{\"id\":1,\"response\":{}1{}}}", "{\"a\":".repeat(50_000), "}".repeat(50_000))));
    cases.push(with("response", parse(r#"{"nested": [1, 2]}"#)));
    cases.push(with("kind", JsValue::symbol(Some("dead_code"))));
    cases.push(JsValue::UNDEFINED);
    cases.push(js_sys::Function::new_no_args("return 1").into());
    for (i, case) in cases.into_iter().enumerate() {
        let reply = read_reply(answer_value(case, &|| None));
        let Reply::Failed { why } = reply else { panic!("case {i}: {reply:?}") };
        assert!(why.starts_with("the checker cannot read this request"), "case {i}: {why}");
    }
    // And the page reads anything the worker could send without panicking.
    for text in ["null", "{\"type\":\"verdict\"}", "[]", "\"a message\""] {
        assert!(matches!(read_reply(parse(text)), Reply::Failed { .. }), "{text}");
    }
    assert_eq!(read_reply(to_value(&Reply::Ready)), Reply::Ready);
}

#[wasm_bindgen_test]
fn shared_solutions_round_trip_and_damage_is_reported() {
    use cabrito::web::share::{decode_solution, encode_solution, solution_in};
    let mut r = Lcg(5);
    let task = generate(&spec("v=1&kind=cache_function&n=40&seed=3")).unwrap();
    let mut samples = vec![String::new(), "x".into(), "é€𝄞\n\t".into(), task.solution_code.clone()];
    for _ in 0..200 {
        let len = r.below(300) as usize;
        samples.push((0..len).map(|_| char::from_u32(32 + r.below(0x2000) as u32).unwrap_or('?')).collect());
    }
    for text in &samples {
        let enc = encode_solution(text);
        assert!(enc.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{enc}");
        assert_eq!(decode_solution(&enc).as_deref(), Ok(text.as_str()));
    }
    // Compression pays for a real solution.
    assert!(encode_solution(&task.solution_code).len() < task.solution_code.len() / 2);
    // Damaged data gives a reason, never a panic.
    for bad in ["%%%", "AAAA", "not base64!", "_-_-_-", &encode_solution(&task.solution_code)[..40]] {
        assert!(decode_solution(bad).is_err(), "{bad}");
    }
    // In a link: the spec ignores it, the app finds it.
    let s = spec("v=1&kind=dead_code&n=7");
    let link = format!("{}&solution={}", route::fragment(&s), encode_solution("print(1)\n"));
    assert_eq!(route::parse(&link), Route::Task(s.clone()));
    assert_eq!(solution_in(&link), Some(Ok("print(1)\n".to_string())));
    assert_eq!(solution_in(&route::fragment(&s)), None);
    assert!(matches!(solution_in("#/task?v=1&solution=%%%"), Some(Err(_))));
}

/// A task with a big (clustered) graph is held between its generation and its view's first render,
/// until `Release` for that spec; a small one is not, nor a big one the page already shows (a new
/// panel in its link), and a release for another spec changes nothing.
#[wasm_bindgen_test]
fn big_tasks_are_held_for_one_turn_and_released_by_their_spec() {
    use cabrito::web::app::{AppAction, State};
    use yew::Reducible;
    let small = State::from_fragment(&route::fragment(&spec("v=1&kind=add_parameter&n=25&seed=3")));
    assert!(matches!(small.shown, Some(Ok(_))) && !small.held, "a small task renders at once");
    let big_spec = spec("v=1&kind=add_parameter&n=450&seed=3");
    let fragment = route::fragment(&big_spec);
    let big = std::rc::Rc::new(State::from_fragment(&fragment));
    let Some(Ok(shown)) = &big.shown else { panic!("the big task is generated while held") };
    assert!(cabrito::web::bigraph::is_big(shown) && big.held, "a big task is held");
    let other = big.clone().reduce(AppAction::Release(spec("v=1&kind=add_parameter&n=450&seed=4")));
    assert!(other.held, "a release for another spec does not show this one");
    let released = big.clone().reduce(AppAction::Release(big_spec.clone()));
    assert!(!released.held && released.shown == big.shown);
    let panel = route::with_panel(&fragment, route::SidePanel::Graph);
    let same = big.reduce(AppAction::Navigate(panel));
    assert!(
        !same.held && same.shown == released.shown,
        "the same task with another panel is not generated or held again"
    );
    // A task the generator module made (the page waited for a part of the generator) is held the
    // same way when big, and not when small.
    for (query, big) in [("v=1&kind=add_parameter&n=450&seed=3", true), ("v=1&kind=add_parameter&n=25&seed=3", false)] {
        let s = spec(query);
        let page = State::from_fragment(&route::fragment(&s));
        let Some(Ok(made)) = page.shown.clone() else { panic!("{query}") };
        let waiting = std::rc::Rc::new(State {
            shown: None,
            held: false,
            waiting: Some(cabrito_gen::task::Extra::Runtime),
            ..page
        });
        let done = waiting.reduce(AppAction::Generated(s, Ok(made)));
        assert!(done.waiting.is_none() && matches!(done.shown, Some(Ok(_))), "{query}");
        assert_eq!(done.held, big, "{query}: held only when big");
    }
}

// ---- the app in the page ----

fn document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}

fn set_hash(fragment: &str) {
    web_sys::window().expect("window").location().set_hash(fragment.trim_start_matches('#')).expect("set hash");
}

/// Wait (up to 10 s) until `#task` shows `spec`, then return the element.
async fn shown(spec: &TaskSpec) -> web_sys::Element {
    let canonical = spec.canonical();
    for _ in 0..200 {
        if let Some(t) = document().get_element_by_id("task") {
            if t.get_attribute("data-spec").as_deref() == Some(canonical.as_str()) {
                return t;
            }
        }
        TimeoutFuture::new(50).await;
    }
    panic!("the page never showed {canonical}");
}

fn text(id: &str) -> String {
    document().get_element_by_id(id).and_then(|e| e.text_content()).unwrap_or_else(|| panic!("no #{id}"))
}

/// The text of `#id` once it equals `want`, or as it is after 10 s: the code view may still be
/// filling in after the task is shown (a loaded machine made that race a red run).
async fn settled_text(id: &str, want: &str) -> String {
    for _ in 0..200 {
        let now = text(id);
        if now == want {
            return now;
        }
        TimeoutFuture::new(50).await;
    }
    text(id)
}

#[wasm_bindgen_test]
async fn the_app_shows_the_linked_task_and_follows_the_address_bar() {
    let first = spec("v=1&kind=add_parameter&domain=string&axis=traversal&n=12&seed=5");
    set_hash(&route::fragment(&first));
    let root = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<cabrito::web::App>::with_root(root).render();

    let t = shown(&first).await;
    let task = generate(&first).unwrap();
    // The hash is written once the page is idle.
    for _ in 0..250 {
        if t.has_attribute("data-hash") {
            break;
        }
        TimeoutFuture::new(20).await;
    }
    assert_eq!(t.get_attribute("data-hash"), Some(task_hash(&task)));
    assert_eq!(text("prompt"), task.prompt);
    // (The block fills in after its first paint.)
    assert_eq!(settled_text("starter-code", &task.starter_code).await, task.starter_code);
    assert!(document().get_element_by_id("error").is_none(), "no error for a good link");
    // One SVG vertex per function, coloured by role; code lines carry their function.
    let vertices = document().query_selector_all("#call-graph g.vertex[data-name]").unwrap();
    assert_eq!(vertices.length() as usize, task.sizes.functions);
    for (name, role) in &task.roles {
        let v = document().get_element_by_id(&format!("v-{name}")).unwrap_or_else(|| panic!("no vertex for {name}"));
        assert_eq!(v.get_attribute("data-role").as_deref(), Some(role.as_str()), "{name}");
    }
    let first_fn = task.roles.keys().next().unwrap().clone();
    let lines = document().query_selector_all(&format!("#starter-code .line[data-fn=\"{first_fn}\"]")).unwrap();
    assert!(lines.length() >= 2, "the code lines of {first_fn} are marked");
    // Hovering a vertex shades its function's code; leaving clears it. (The graph's markup handles the
    // pointer by delegation, so these are the bubbling events a real pointer sends.)
    let vertex = document().get_element_by_id(&format!("v-{first_fn}")).unwrap();
    let pointer = |kind: &str| {
        js_sys::Function::new_with_args("e", &format!("e.dispatchEvent(new MouseEvent('{kind}', {{bubbles: true}}))"))
            .call1(&wasm_bindgen::JsValue::NULL, &vertex)
            .unwrap();
    };
    pointer("mouseover");
    let hovered = format!("#starter-code .line.hovered[data-fn=\"{first_fn}\"]");
    for _ in 0..100 {
        if document().query_selector_all(&hovered).unwrap().length() > 0 {
            break;
        }
        TimeoutFuture::new(20).await;
    }
    assert_eq!(document().query_selector_all(&hovered).unwrap().length(), lines.length(), "hover shades {first_fn}");
    pointer("mouseout");
    for _ in 0..100 {
        if document().query_selector_all("#starter-code .line.hovered").unwrap().length() == 0 {
            break;
        }
        TimeoutFuture::new(20).await;
    }
    assert_eq!(document().query_selector_all("#starter-code .line.hovered").unwrap().length(), 0);
    assert!(document().title().contains("seed 5"), "title: {}", document().title());

    // A new fragment in the address bar shows its task.
    let second = spec("v=1&kind=extract_helper&domain=array&axis=search&n=30&seed=8");
    set_hash(&route::fragment(&second));
    shown(&second).await;
    let want = generate(&second).unwrap().starter_code;
    assert_eq!(settled_text("starter-code", &want).await, want);

    // A bad link shows the reason and the nearest task, with a link to it.
    set_hash("#/task?v=1&kind=extract_helper&n=1&seed=8");
    let nearest = spec("v=1&kind=extract_helper&seed=8");
    shown(&nearest).await;
    assert!(text("error-message").contains("at least 2"), "{}", text("error-message"));
    let href = document().get_element_by_id("nearest-link").and_then(|a| a.get_attribute("href"));
    assert_eq!(href, Some(route::fragment(&nearest)));

    // Back to a good link: the message goes away.
    set_hash(&route::fragment(&first));
    shown(&first).await;
    assert!(document().get_element_by_id("error").is_none(), "the error stays after a good link");
    set_hash("");
}

/// A big task whose clustered graph's module cannot be fetched (the test server has none): the view
/// still renders (the hold ends when the load fails), and the open graph panel says why, naming the file.
#[wasm_bindgen_test]
async fn a_big_graph_whose_module_cannot_load_says_so() {
    let s = spec("v=1&kind=add_parameter&n=450&seed=3");
    set_hash(&route::with_panel(&route::fragment(&s), route::SidePanel::Graph));
    let root = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<cabrito::web::App>::with_root(root.clone()).render();
    let canonical = s.canonical();
    let mut said = None;
    for _ in 0..300 {
        let task = root.query_selector("#task").unwrap();
        if task.is_some_and(|t| t.get_attribute("data-spec").as_deref() == Some(canonical.as_str())) {
            said = root.query_selector("#graph-error").unwrap().and_then(|e| e.text_content());
            if said.is_some() {
                break;
            }
        }
        TimeoutFuture::new(50).await;
    }
    let said = said.expect("the graph panel says the clustered graph cannot be shown");
    assert!(said.contains("cannot be shown") && said.contains("bigraph.js"), "{said}");
    assert!(root.query_selector("#task-holding").unwrap().is_none(), "the hold ended");
    let panel = root.query_selector("#panel-graph").unwrap().expect("the graph panel");
    assert!(!panel.has_attribute("hidden"), "the link's graph panel is the one open");
    set_hash("");
}
