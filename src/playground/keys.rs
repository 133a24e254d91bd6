//! The task page's keyboard shortcuts: which key does what (pure; the listener is in
//! `web::keys`). One table ([`SHORTCUTS`]) feeds both the key handling and the help overlay.

use super::route::SidePanel;

/// What a shortcut does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Open a side panel.
    Panel(SidePanel),
    /// Move the focus to the code.
    Code,
    /// Show a code tab: 0 starter, 1 reference, 2 diff.
    CodeTab(u8),
    /// The previous (-1) or next (+1) side panel.
    Cycle(i8),
    /// Large type on or off.
    LargeType,
    /// The help overlay.
    Help,
}

/// A shortcut: its key as typed (`KeyboardEvent.key`), what it does, and the help line.
pub struct Shortcut {
    pub key: &'static str,
    pub command: Command,
    pub help: &'static str,
}

/// Every shortcut, in the order the help lists them.
pub const SHORTCUTS: &[Shortcut] = &[
    Shortcut {
        key: "r",
        command: Command::Panel(SidePanel::Grade),
        help: "Grade: paste an answer, the rubric, the hidden tests",
    },
    Shortcut {
        key: "g",
        command: Command::Panel(SidePanel::Graph),
        help: "Graph: the call graph (data flow for merge tasks)",
    },
    Shortcut {
        key: "s",
        command: Command::Panel(SidePanel::Statement),
        help: "Statement: the problem statement and the 4-tuple",
    },
    Shortcut { key: "p", command: Command::Panel(SidePanel::Prompt), help: "Prompt: the full LLM prompt" },
    Shortcut { key: "n", command: Command::Panel(SidePanel::Renames), help: "Renames (variable renaming tasks)" },
    Shortcut {
        key: "q",
        command: Command::Panel(SidePanel::Requirements),
        help: "Requirements (instruction following)",
    },
    Shortcut { key: "w", command: Command::Panel(SidePanel::Why), help: "Why this branch? (runtime resolution)" },
    Shortcut { key: "[", command: Command::Cycle(-1), help: "The previous panel" },
    Shortcut { key: "]", command: Command::Cycle(1), help: "The next panel" },
    Shortcut { key: "c", command: Command::Code, help: "Move to the code" },
    Shortcut { key: "1", command: Command::CodeTab(0), help: "Code: the starter solution.py" },
    Shortcut { key: "2", command: Command::CodeTab(1), help: "Code: the reference solution" },
    Shortcut { key: "3", command: Command::CodeTab(2), help: "Code: the diff" },
    Shortcut { key: "4", command: Command::CodeTab(3), help: "Code: your solution, in the editor" },
    Shortcut { key: "l", command: Command::LargeType, help: "Large type on or off (for projectors)" },
    Shortcut { key: "?", command: Command::Help, help: "This list" },
];

/// Where a key press happened, as far as shortcuts care.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Press<'a> {
    /// `KeyboardEvent.key`.
    pub key: &'a str,
    /// Ctrl, Alt or Meta held (Shift is allowed: `?` needs it).
    pub modifier: bool,
    /// The focus is in a text field, a select or an editable element: keys are text there.
    pub typing: bool,
    /// The key repeats (held down).
    pub repeat: bool,
}

/// The command of a key press, if it is a shortcut and not text being typed or a browser shortcut.
pub fn command(press: Press<'_>) -> Option<Command> {
    if press.modifier || press.typing || press.repeat {
        return None;
    }
    SHORTCUTS.iter().find(|s| s.key == press.key).map(|s| s.command)
}

/// Whether an element with this tag name (and `contenteditable` state) takes typed text, so that a
/// key pressed there is never a shortcut.
pub fn takes_text(tag: &str, input_type: Option<&str>, editable: bool) -> bool {
    match tag.to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            input_type.map(str::to_ascii_lowercase).as_deref(),
            Some("button" | "checkbox" | "radio" | "submit" | "reset" | "range" | "color" | "file" | "image")
        ),
        _ => editable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn press(key: &str) -> Press<'_> {
        Press { key, ..Press::default() }
    }

    #[test]
    fn the_named_keys_do_what_the_help_says() {
        assert_eq!(command(press("g")), Some(Command::Panel(SidePanel::Graph)));
        assert_eq!(command(press("r")), Some(Command::Panel(SidePanel::Grade)));
        assert_eq!(command(press("s")), Some(Command::Panel(SidePanel::Statement)));
        assert_eq!(command(press("p")), Some(Command::Panel(SidePanel::Prompt)));
        assert_eq!(command(press("c")), Some(Command::Code));
        assert_eq!(command(press("2")), Some(Command::CodeTab(1)));
        assert_eq!(command(press("]")), Some(Command::Cycle(1)));
        assert_eq!(command(press("l")), Some(Command::LargeType));
        assert_eq!(command(press("?")), Some(Command::Help));
        assert_eq!(command(press("x")), None);
        assert_eq!(command(press("G")), None, "keys are case-sensitive: Shift+G is not g");
        // Every panel has a key, and no key is listed twice.
        for &p in SidePanel::ALL {
            assert!(SHORTCUTS.iter().any(|s| s.command == Command::Panel(p)), "{p:?}");
        }
        let keys: HashSet<&str> = SHORTCUTS.iter().map(|s| s.key).collect();
        assert_eq!(keys.len(), SHORTCUTS.len());
    }

    #[test]
    fn never_while_typing_nor_with_ctrl_alt_meta() {
        for s in SHORTCUTS {
            assert_eq!(command(Press { key: s.key, typing: true, ..Press::default() }), None);
            assert_eq!(command(Press { key: s.key, modifier: true, ..Press::default() }), None);
            assert_eq!(command(Press { key: s.key, repeat: true, ..Press::default() }), None);
        }
        assert!(takes_text("TEXTAREA", None, false));
        assert!(takes_text("select", None, false));
        assert!(takes_text("input", None, false));
        assert!(takes_text("input", Some("number"), false));
        assert!(takes_text("input", Some("text"), false));
        assert!(!takes_text("input", Some("checkbox"), false));
        assert!(!takes_text("button", None, false));
        assert!(takes_text("div", None, true));
        assert!(!takes_text("div", None, false));
    }
}
