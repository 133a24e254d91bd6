//! What one program run produced: the harness's result lines, read into per-trial, per-call
//! outcomes. Pure (the native runner feeds it the bytes it captured).

use super::value::Value;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// An exception raised in Python: its type name and message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PyError {
    #[serde(rename = "type")]
    pub type_name: String,
    pub message: String,
}

impl std::fmt::Display for PyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.message.is_empty() {
            f.write_str(&self.type_name)
        } else {
            write!(f, "{}: {}", self.type_name, self.message)
        }
    }
}

/// The result of one call.
#[derive(Clone, Debug, PartialEq)]
pub enum CallResult {
    Returned(Value),
    Raised(PyError),
}

/// One trial: a setup error (the stubs or the program raised while being executed), or the calls'
/// results in plan order (`None` = no result line: the run stopped before or during that call).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TrialOutcome {
    pub setup_error: Option<PyError>,
    pub calls: Vec<Option<CallResult>>,
}

/// How the process ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum RunStatus {
    /// The harness ran every trial and said so.
    Completed,
    /// The harness stopped early because a call hit the per-call time limit.
    StoppedAfterTimeout,
    /// Killed at the wall-clock limit.
    TimedOut { seconds: f64 },
    /// Ended by a signal (e.g. SIGKILL at the memory or CPU limit, SIGXCPU, SIGXFSZ).
    Signalled { signal: i32 },
    /// Exited before saying it had finished.
    Exited { code: i32 },
    /// The result channel broke the protocol (too much output, unreadable lines).
    Protocol { message: String },
    /// Python could not be started at all.
    SpawnFailed { message: String },
    /// Stopped from outside (the job was cancelled or timed out).
    Cancelled,
}

impl RunStatus {
    pub fn describe(&self) -> String {
        match self {
            RunStatus::Completed => "completed".into(),
            RunStatus::StoppedAfterTimeout => "the run stopped after a call hit the per-call time limit".into(),
            RunStatus::TimedOut { seconds } => format!("killed after the wall-clock limit of {seconds:.1} s"),
            RunStatus::Signalled { signal } => format!("killed by signal {signal}{}", signal_hint(*signal)),
            RunStatus::Exited { code } => format!("the Python process exited with status {code} before finishing"),
            RunStatus::Protocol { message } => format!("unreadable harness output: {message}"),
            RunStatus::SpawnFailed { message } => format!("could not start Python: {message}"),
            RunStatus::Cancelled => "stopped: the job was cancelled".into(),
        }
    }
}

fn signal_hint(sig: i32) -> &'static str {
    match sig {
        9 => " (SIGKILL: a resource limit or the grader)",
        24 => " (SIGXCPU: CPU time limit)",
        25 => " (SIGXFSZ: file size limit)",
        11 => " (SIGSEGV)",
        6 => " (SIGABRT)",
        _ => "",
    }
}

/// Everything one run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    pub trials: Vec<TrialOutcome>,
    /// The first bytes of what the program wrote to stdout and stderr (capped).
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
}

impl RunOutcome {
    /// A run that produced nothing (could not start).
    pub fn failed(status: RunStatus, trials: usize, calls: usize) -> RunOutcome {
        RunOutcome {
            status,
            trials: (0..trials).map(|_| TrialOutcome { setup_error: None, calls: vec![None; calls] }).collect(),
            stdout: String::new(),
            stderr: String::new(),
            seconds: 0.0,
        }
    }
}

fn py_error(j: &Json) -> PyError {
    PyError {
        type_name: j.get("type").and_then(Json::as_str).unwrap_or("Exception").to_string(),
        message: j.get("message").and_then(Json::as_str).unwrap_or("").to_string(),
    }
}

/// How the harness said it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// No `done` line: the process died or was killed.
    Unfinished,
    Done,
    /// `done` after stopping at a call that timed out.
    StoppedAfterTimeout,
}

/// Read the harness's result lines. `shape[t]` is the number of calls of trial `t`. Returns the
/// trials and how the harness ended; an unreadable line is a protocol error naming it.
pub fn read_results(text: &str, shape: &[usize]) -> Result<(Vec<TrialOutcome>, Ending), String> {
    let mut trials: Vec<TrialOutcome> =
        shape.iter().map(|&n| TrialOutcome { setup_error: None, calls: vec![None; n] }).collect();
    let mut done = Ending::Unfinished;
    for (lineno, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if let Some((t, i, v)) = quick_call(line) {
            if let Some(slot) = trials.get_mut(t).and_then(|tr| tr.calls.get_mut(i)) {
                *slot = Some(CallResult::Returned(v));
                continue;
            }
        }
        let bad = |what: &str| format!("result line {}: {what}", lineno + 1);
        let j: Json = serde_json::from_str(line).map_err(|e| bad(&format!("not JSON ({e})")))?;
        let kind = j.get("k").and_then(Json::as_str).ok_or_else(|| bad("no kind"))?;
        if kind == "done" {
            done = if j.get("stopped").and_then(Json::as_str).is_some() {
                Ending::StoppedAfterTimeout
            } else {
                Ending::Done
            };
            continue;
        }
        let t = j.get("trial").and_then(Json::as_u64).ok_or_else(|| bad("no trial"))? as usize;
        let trial = trials.get_mut(t).ok_or_else(|| bad("trial out of range"))?;
        match kind {
            "setup" => trial.setup_error = Some(py_error(j.get("error").unwrap_or(&Json::Null))),
            "call" => {
                let i = j.get("i").and_then(Json::as_u64).ok_or_else(|| bad("no call index"))? as usize;
                let slot = trial.calls.get_mut(i).ok_or_else(|| bad("call index out of range"))?;
                *slot = Some(if let Some(e) = j.get("error") {
                    CallResult::Raised(py_error(e))
                } else {
                    let v = j.get("value").ok_or_else(|| bad("call without value or error"))?;
                    match Value::from_json(v) {
                        Ok(v) => CallResult::Returned(v),
                        Err(m) => CallResult::Raised(PyError { type_name: "UnreadableValue".into(), message: m }),
                    }
                });
            }
            other => return Err(bad(&format!("unknown kind '{other}'"))),
        }
    }
    Ok((trials, done))
}

/// The harness's most common line, a call that returned a float, an int, a plain ASCII string or a
/// float64 array (`{"k":"call","trial":T,"i":I,"value":{"t":"float","hex":"000000000000e03f"}}`, as
/// `emit_value` writes it), read without building a JSON tree (which took most of the grader's own
/// time); any other line, or one this does not read exactly as JSON would, goes to the general
/// reader (`None`), which also gives a malformed value its error.
fn quick_call(line: &str) -> Option<(usize, usize, Value)> {
    fn index(s: &str) -> Option<(usize, &str)> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let digits = &s[..end];
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        Some((digits.parse().ok()?, &s[end..]))
    }
    let (t, rest) = index(line.strip_prefix(r#"{"k":"call","trial":"#)?)?;
    let (i, rest) = index(rest.strip_prefix(r#","i":"#)?)?;
    let (tag, rest) = rest.strip_prefix(r#","value":{"t":""#)?.split_once('"')?;
    if tag == "ndarray" {
        return quick_array(rest).map(|v| (t, i, v));
    }
    if tag == "float" {
        let hex = rest.strip_prefix(r#","hex":""#)?.strip_suffix(r#""}}"#)?;
        return super::value::f64_of_hex(hex).map(|x| (t, i, Value::Float(x)));
    }
    let text = rest.strip_prefix(r#","v":""#)?.strip_suffix(r#""}}"#)?;
    // Printable ASCII without quotes or escapes: the JSON string's text is these bytes.
    if !text.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\') {
        return None;
    }
    let v = match tag {
        "int" => Value::Int(super::value::IntValue { text: text.to_string() }),
        "str" => Value::Str(text.to_string()),
        _ => return None,
    };
    Some((t, i, v))
}

/// The rest of a float64 array's line after its tag, as `emit_value` writes it
/// (`,"shape":[2,3],"dtype":"float64","hex":"…"}}`), or `None`.
fn quick_array(rest: &str) -> Option<Value> {
    let (dims, rest) = rest.strip_prefix(r#","shape":["#)?.split_once(']')?;
    let hex = rest.strip_prefix(r#","dtype":"float64","hex":""#)?.strip_suffix(r#""}}"#)?;
    let mut shape = Vec::new();
    if !dims.is_empty() {
        for d in dims.split(',') {
            if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) || (d.len() > 1 && d.starts_with('0')) {
                return None;
            }
            shape.push(d.parse::<usize>().ok()?);
        }
    }
    let values = super::value::f64_hex(hex)?;
    if shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)) != Some(values.len()) {
        return None;
    }
    Some(Value::Array { shape, dtype: "float64".into(), values: Some(values), repr: String::new() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_calls_setup_errors_and_done() {
        let text = concat!(
            "{\"k\":\"call\",\"trial\":0,\"i\":1,\"value\":{\"t\":\"float\",\"v\":\"nan\"}}\n",
            "{\"k\":\"setup\",\"trial\":1,\"error\":{\"type\":\"NameError\",\"message\":\"x\"}}\n",
            "{\"k\":\"call\",\"trial\":0,\"i\":0,\"error\":{\"type\":\"ZeroDivisionError\",\"message\":\"d\"}}\n",
            "{\"k\":\"done\"}\n"
        );
        let (trials, done) = read_results(text, &[2, 2]).unwrap();
        assert_eq!(done, Ending::Done);
        assert!(matches!(&trials[0].calls[1], Some(CallResult::Returned(Value::Float(x))) if x.is_nan()));
        assert!(matches!(&trials[0].calls[0], Some(CallResult::Raised(e)) if e.type_name == "ZeroDivisionError"));
        assert_eq!(trials[1].setup_error.as_ref().unwrap().type_name, "NameError");
        assert!(read_results("{\"k\":\"call\",\"trial\":5,\"i\":0}\n", &[1]).is_err());
        assert!(read_results("garbage\n", &[1]).unwrap_err().contains("line 1"));
    }

    #[test]
    fn the_quick_reader_reads_as_the_json_reader_does() {
        let values = [
            r#"{"t":"float","hex":"000000000000e03f"}"#,
            r#"{"t":"float","hex":"010000000000f8ff"}"#,
            r#"{"t":"float","hex":"000000000000E03F"}"#,
            r#"{"t":"float","hex":"000000000000e03f00"}"#,
            r#"{"t":"float","hex":null}"#,
            r#"{"t":"float","v":"0.5"}"#,
            r#"{"t":"float","v":"-1e-05"}"#,
            r#"{"t":"float","v":"nan"}"#,
            r#"{"t":"float","v":"-inf"}"#,
            r#"{"t":"float","v":"zero"}"#,
            r#"{"t":"int","v":"-123456789012345678901234567890"}"#,
            r#"{"t":"str","v":"a b"}"#,
            r#"{"t":"str","v":"tab\tquote\"é\u00e9"}"#,
            r#"{"t":"bool","v":true}"#,
            r#"{"t":"tuple","v":[{"t":"int","v":"1"}]}"#,
            r#"{"t":"ndarray","shape":[2],"dtype":"float64","hex":"000000000000e03f000000000000f87f"}"#,
            r#"{"t":"ndarray","shape":[2,1],"dtype":"float64","hex":"000000000000f0bf0000000000000080"}"#,
            r#"{"t":"ndarray","shape":[],"dtype":"float64","hex":"000000000000f07f"}"#,
            r#"{"t":"ndarray","shape":[0],"dtype":"float64","hex":""}"#,
            r#"{"t":"ndarray","shape":[3],"dtype":"float64","hex":"000000000000e03f"}"#,
            r#"{"t":"ndarray","shape":[1],"dtype":"float64","hex":"000000000000E03F"}"#,
            r#"{"t":"ndarray","shape":[1],"dtype":"float64","v":["0.5"]}"#,
        ];
        for (n, v) in values.iter().enumerate() {
            let quick = format!("{{\"k\":\"call\",\"trial\":1,\"i\":{n},\"value\":{v}}}\n");
            // The same record spaced out: never the quick reader's.
            let slow = format!("{{\"k\": \"call\", \"trial\": 1, \"i\": {n}, \"value\": {v}}}\n");
            let a = read_results(&quick, &[0, values.len()]).unwrap();
            let b = read_results(&slow, &[0, values.len()]).unwrap();
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{v}");
        }
        // The hex of an array reads as the repr text of its elements does.
        let hex = r#"{"k":"call","trial":0,"i":0,"value":{"t":"ndarray","shape":[3],"dtype":"float64","hex":"000000000000e03f000000000000f0ff010000000000f8ff"}}"#;
        let text = r#"{"k":"call","trial":0,"i":0,"value":{"t":"ndarray","shape":[3],"dtype":"float64","v":["0.5","-inf","nan"]}}"#;
        let a = read_results(&format!("{hex}\n"), &[1]).unwrap();
        let b = read_results(&format!("{text}\n"), &[1]).unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert!(read_results("{\"k\":\"call\",\"trial\":01,\"i\":0,\"value\":{\"t\":\"int\",\"v\":\"1\"}}\n", &[1, 1])
            .is_err());
        assert!(
            read_results("{\"k\":\"call\",\"trial\":0,\"i\":3,\"value\":{\"t\":\"int\",\"v\":\"1\"}}\n", &[1]).is_err()
        );
    }
    /// The 16 hex digits the harness writes for `x` (`struct.pack("<d", x).hex()`).
    fn hex_of(x: f64) -> String {
        x.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// What one call line holding `value` reads as, written as `emit_value` writes it (the quick
    /// reader) and spaced out (the JSON reader); both must agree.
    fn read_one(value: &str) -> Option<CallResult> {
        let quick = format!("{{\"k\":\"call\",\"trial\":0,\"i\":0,\"value\":{value}}}\n");
        let slow = format!("{{\"k\": \"call\", \"trial\": 0, \"i\": 0, \"value\": {value}}}\n");
        let (a, _) = read_results(&quick, &[1]).expect("a call line reads");
        let (b, _) = read_results(&slow, &[1]).expect("a call line reads");
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{value}");
        a[0].calls[0].clone()
    }

    fn float_bits(value: &str) -> Option<u64> {
        match read_one(value) {
            Some(CallResult::Returned(Value::Float(x))) => Some(x.to_bits()),
            _ => None,
        }
    }

    #[test]
    fn a_float_reads_bit_for_bit() {
        assert_eq!(hex_of(0.5), "000000000000e03f");
        let specials = [
            0.0,
            -0.0,
            0.5,
            -1e-05,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::from_bits(0xfff8_0000_dead_beef),
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            -f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            f64::MAX,
            f64::MIN,
        ];
        for x in specials {
            let value = format!(r#"{{"t":"float","hex":"{}"}}"#, hex_of(x));
            assert_eq!(float_bits(&value), Some(x.to_bits()), "{value}");
        }
        // Inside a tuple (the general reader's path for it).
        let tuple = format!(r#"{{"t":"tuple","v":[{{"t":"float","hex":"{}"}}]}}"#, hex_of(-0.0));
        match read_one(&tuple) {
            Some(CallResult::Returned(Value::Tuple(xs))) => {
                assert!(matches!(xs[..], [Value::Float(x)] if x.to_bits() == (-0.0f64).to_bits()))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_malformed_float_hex_is_an_error_for_that_call_only() {
        let bad = [
            r#""""#,
            r#""00""#,
            r#""000000000000e03""#,
            r#""000000000000e03f0""#,
            r#""000000000000E03F""#,
            r#""000000000000e03g""#,
            r#"" 00000000000e03f""#,
            r#""00000000000000é3""#,
            r#""0x00000000000e03""#,
            r#""000000000000e03f\n""#,
            "5",
            "null",
            "[]",
        ];
        for hex in bad {
            let value = format!(r#"{{"t":"float","hex":{hex}}}"#);
            match read_one(&value) {
                Some(CallResult::Raised(e)) => assert_eq!(e.type_name, "UnreadableValue", "{value}"),
                other => panic!("{value}: {other:?}"),
            }
            // The trial's other calls still read.
            let text = format!(
                "{{\"k\":\"call\",\"trial\":0,\"i\":0,\"value\":{value}}}\n\
                 {{\"k\":\"call\",\"trial\":0,\"i\":1,\"value\":{{\"t\":\"float\",\"hex\":\"000000000000e03f\"}}}}\n"
            );
            let (trials, _) = read_results(&text, &[2]).unwrap();
            assert!(matches!(trials[0].calls[1], Some(CallResult::Returned(Value::Float(x))) if x == 0.5));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        #[test]
        fn every_float_bit_pattern_round_trips(bits in proptest::prelude::any::<u64>()) {
            let value = format!(r#"{{"t":"float","hex":"{}"}}"#, hex_of(f64::from_bits(bits)));
            proptest::prop_assert_eq!(float_bits(&value), Some(bits));
        }

        #[test]
        fn any_text_in_the_hex_field_reads_without_panicking(
            text in proptest::prop_oneof!["\\PC{0,24}", "[0-9a-fA-Fx é]{15,17}"]
        ) {
            let value = format!(r#"{{"t":"float","hex":{}}}"#, serde_json::to_string(&text).unwrap());
            let well_formed = text.len() == 16 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            proptest::prop_assert_eq!(float_bits(&value).is_some(), well_formed);
        }
    }
}
