// The solution editor of the task page: CodeMirror 6 with Python, bundled by esbuild into dist/editor.js
// (scripts/build_editor.mjs) and fetched by the app only when a reader opens "Your solution"
// (src/web/editor.rs). It puts one call on `window`: `cabritoEditor.mount(host, text, onChange, onNotice,
// label)`, which returns a handle { get, set, goto, selected, focus, destroy }; the handle is also kept on the host
// element (`host.cabritoEditor`) so tests and the page can read the text the reader sees.
import { EditorState, EditorSelection } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  highlightSpecialChars,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { indentOnInput, bracketMatching, syntaxHighlighting, indentUnit } from '@codemirror/language';
import { classHighlighter } from '@lezer/highlight';
import { search, searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { python } from '@codemirror/lang-python';

// The grader reads at most this many bytes (cabrito_check::response::MAX_RESPONSE_BYTES, 2 MB); a
// change that would pass it is refused with a message instead of freezing the page on a huge paste.
const MAX_CHARS = 2 * 1024 * 1024;

function mount(host, text, onChange, onNotice, label) {
  let timer = 0;
  const notify = (m) => { try { onNotice(m); } catch (e) { /* the page went away */ } };
  // Refuse a change that makes the text too long, and say why.
  // Refuse binary bytes too (a NUL: no Python source holds one), from a paste or a dropped file.
  const limit = EditorState.transactionFilter.of((tr) => {
    if (!tr.docChanged) return tr;
    if (tr.newDoc.length > MAX_CHARS) {
      const mb = (tr.newDoc.length / 1048576).toFixed(1);
      notify(`That change was not taken: it would make the solution ${mb} MB, and at most 2 MB can be graded. The answer is unchanged.`);
      return [];
    }
    let binary = false;
    tr.changes.iterChanges((_a, _b, _c, _d, inserted) => { if (!binary && inserted.length && inserted.toString().includes('\0')) binary = true; });
    if (binary) {
      notify('That text was not taken: it holds binary bytes (a NUL byte), so it is not a Python file. The answer is unchanged.');
      return [];
    }
    return tr;
  });
  const changed = EditorView.updateListener.of((u) => {
    if (!u.docChanged) return;
    // One report per pause in typing: each report runs the static checks on the whole text.
    clearTimeout(timer);
    timer = setTimeout(() => { try { onChange(view.state.doc.toString()); } catch (e) { /* the page went away */ } }, 120);
  });
  const start = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  const view = new EditorView({
    parent: host,
    state: EditorState.create({
      doc: start,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(), drawSelection(),
        indentOnInput(), bracketMatching(), highlightActiveLine(), highlightSelectionMatches(),
        search({ top: true }), syntaxHighlighting(classHighlighter), python(), indentUnit.of('    '),
        EditorState.tabSize.of(4), limit, changed,
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
        EditorView.contentAttributes.of({ 'aria-label': label || 'Your solution.py', spellcheck: 'false' }),
      ],
    }),
  });
  const handle = {
    get: () => view.state.doc.toString(),
    // Replace the whole text (a paste button, a dropped file, a new task), kept in the undo history.
    set: (t) => {
      if (t === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
    },
    // Select line `n` (1-based) and scroll it to the middle of the editor.
    goto: (n) => {
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(1, n | 0), doc.lines));
      view.dispatch({
        selection: EditorSelection.range(line.from, line.to),
        effects: EditorView.scrollIntoView(line.from, { y: 'center' }),
      });
      view.focus();
    },
    // The text of the main selection (what a rubric line link selected).
    selected: () => { const r = view.state.selection.main; return view.state.sliceDoc(r.from, r.to); },
    focus: () => view.focus(),
    destroy: () => { clearTimeout(timer); view.destroy(); delete host.cabritoEditor; delete host.value; },
  };
  host.cabritoEditor = handle;
  // The text, read as from the plain text box the editor replaces (`#solution.value`).
  Object.defineProperty(host, 'value', { get: handle.get, configurable: true });
  return handle;
}

window.cabritoEditor = { mount, maxChars: MAX_CHARS };
