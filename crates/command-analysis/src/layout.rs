//! The shell analysis as numbers, for the binding's fast crossing.
//!
//! A policy check analyses one command and hands the result to JavaScript. As JSON, most of
//! that cost is JavaScript parsing text it could mostly have sliced from the command it
//! already holds: a part's text and most words are spans of the command. So this module
//! writes an [`Analysis`] into a caller's `u32` buffer, each string a pair of UTF-16 offsets
//! into either the command or one short string of "extras" (what is not a span of the
//! command: unquoted words, rule ids, reasons), which is the one string that crosses.
//!
//! Layout (every string is two numbers, `start` then `end`; a `start` with [`EXTRA`] set is
//! an offset into the extras, `start == `[`NULL`] is a missing string):
//!
//! ```text
//! [0] length of the layout      [1] analysis flags (FLAG_*)     [2] number of parts
//! unsupported?, deny?, refused?                  (strings, present by their flags)
//! per part: part flags (PART_*), argv length, text, name? (unless PART_NAME_IS_PROGRAM),
//!           deny?, open word? (index << 1 | any, text),
//!           effect? (its code, option, number of words, word indexes), argv strings
//! number of redirects; per redirect: op, target (may be NULL), write (0 or 1)
//! ```
//!
//! The search for spans is budgeted (a multiple of the command's length), so writing a
//! layout stays linear in the command: past the budget, strings go to the extras.

use crate::limits::{
    POLICY_ANALYSIS_LAYOUT_SEARCH_BASE as SEARCH_BUDGET_BASE,
    POLICY_ANALYSIS_LAYOUT_SEARCH_PER_BYTE as SEARCH_BUDGET_PER_BYTE,
};
use crate::shell::Analysis;

/// Where the layout's length is (0: the analysis did not fit and crossed as JSON).
pub const AT_LENGTH: usize = 0;
/// Where the analysis flags (`FLAG_*`) are.
pub const AT_FLAGS: usize = 1;
/// Where the number of parts is.
pub const AT_PARTS: usize = 2;
/// Where the strings and parts start (after the three header words).
pub const AT_BODY: usize = 3;
/// An open word's number: its index shifted left by this, ...
pub const OPEN_INDEX_SHIFT: u32 = 1;
/// ... with this bit set when any value may stand there (a `*`-like word).
pub const OPEN_ANY: u32 = 1;

/// A string's `start` with this bit set is an offset into the extras, not the command.
pub const EXTRA: u32 = 1 << 31;
/// A string `start` for a missing string (a redirection target that is not a static word).
pub const NULL: u32 = u32::MAX;
/// Analysis flag: the line is more than one plain simple command.
pub const FLAG_METACHARACTERS: u32 = 1;
/// Analysis flag: an `unsupported` reason follows.
pub const FLAG_UNSUPPORTED: u32 = 2;
/// Analysis flag: a `deny` rule id follows.
pub const FLAG_DENY: u32 = 4;
/// Analysis flag: a `refused` reason follows.
pub const FLAG_REFUSED: u32 = 8;
/// Part flag: the part was found inside another command.
pub const PART_DERIVED: u32 = 1;
/// Part flag: a default deny rule id follows the text (and name).
pub const PART_DENY: u32 = 2;
/// Part flag: the part's name is its first word, so no name string is written.
pub const PART_NAME_IS_PROGRAM: u32 = 4;
/// Part flag: an open word follows the deny id (a number, `index << 1 | any`, then its text).
pub const PART_OPEN: u32 = 8;
/// Part flag: the default deny rule matched only through a value of the open word.
pub const PART_DENY_OPEN: u32 = 16;
/// Part flag: an option effect follows the open word (its [`Effect::code`], the option, the
/// number of its words and their indexes).
///
/// [`Effect::code`]: crate::effects::Effect::code
pub const PART_EFFECT: u32 = 32;

/// Writes `analysis` of `command` into `out` and returns the extras, or `None` when the
/// layout does not fit in `out` (or an offset would not fit in 31 bits); then the caller
/// sends the analysis another way.
#[must_use]
pub fn write(analysis: &Analysis, command: &str, out: &mut [u32]) -> Option<String> {
    let mut w = Writer {
        out,
        len: AT_BODY,
        command,
        ascii: command.is_ascii(),
        budget: command
            .len()
            .saturating_mul(SEARCH_BUDGET_PER_BYTE)
            .saturating_add(SEARCH_BUDGET_BASE),
        hint: 0,
        extras: String::new(),
        extras_units: 0,
    };
    let mut flags = if analysis.metacharacters {
        FLAG_METACHARACTERS
    } else {
        0
    };
    for (reason, flag) in [
        (analysis.unsupported.as_deref(), FLAG_UNSUPPORTED),
        (analysis.deny, FLAG_DENY),
        (analysis.refused.as_deref(), FLAG_REFUSED),
    ] {
        if let Some(s) = reason {
            flags |= flag;
            w.extra(s)?;
        }
    }
    for part in &analysis.parts {
        let program = part.argv.first().map(String::as_str);
        let name_is_program = program == Some(part.name.as_str());
        let mut pf = 0;
        if part.derived {
            pf |= PART_DERIVED;
        }
        if part.deny.is_some() {
            pf |= PART_DENY;
        }
        if name_is_program {
            pf |= PART_NAME_IS_PROGRAM;
        }
        if part.open.is_some() {
            pf |= PART_OPEN;
        }
        if part.deny_open {
            pf |= PART_DENY_OPEN;
        }
        if part.effect.is_some() {
            pf |= PART_EFFECT;
        }
        w.push(pf)?;
        w.push(u32::try_from(part.argv.len()).ok()?)?;
        w.hint = w.span(&part.text, w.hint)?.unwrap_or(w.hint);
        let mut at = w.hint;
        if !name_is_program {
            w.span(&part.name, at)?;
        }
        if let Some(id) = part.deny {
            w.extra(id)?;
        }
        if let Some(open) = &part.open {
            let index = u32::try_from(open.index).ok()?;
            let any = if open.any { OPEN_ANY } else { 0 };
            w.push(index.checked_mul(1 << OPEN_INDEX_SHIFT)? | any)?;
            w.span(&open.text, at)?;
        }
        if let Some(found) = &part.effect {
            w.push(found.effect.code())?;
            w.span(&found.option, at)?;
            w.push(u32::try_from(found.words.len()).ok()?)?;
            for i in &found.words {
                w.push(u32::try_from(*i).ok()?)?;
            }
        }
        for word in &part.argv {
            // Words are in order: the next one is searched from where this one ends.
            at = w.span(word, at)?.map_or(at, |p| p + word.len());
        }
    }
    w.push(u32::try_from(analysis.redirects.len()).ok()?)?;
    for r in &analysis.redirects {
        w.span(&r.op, w.hint)?;
        match &r.target {
            Some(t) => {
                w.span(t, w.hint)?;
            }
            None => {
                w.push(NULL)?;
                w.push(0)?;
            }
        }
        w.push(u32::from(r.write))?;
    }
    let len = u32::try_from(w.len).ok()?;
    *w.out.get_mut(AT_LENGTH)? = len;
    *w.out.get_mut(AT_FLAGS)? = flags;
    *w.out.get_mut(AT_PARTS)? = u32::try_from(analysis.parts.len()).ok()?;
    Some(w.extras)
}

/// The state of one [`write`].
struct Writer<'a> {
    out: &'a mut [u32],
    len: usize,
    command: &'a str,
    /// Whether byte offsets into the command are its UTF-16 offsets.
    ascii: bool,
    /// Bytes of the command the span search may still scan.
    budget: usize,
    /// Where the current part's text starts in the command (words are searched from there).
    hint: usize,
    extras: String,
    /// The extras' length in UTF-16 units.
    extras_units: usize,
}

impl Writer<'_> {
    /// Appends one number.
    fn push(&mut self, v: u32) -> Option<()> {
        *self.out.get_mut(self.len)? = v;
        self.len += 1;
        Some(())
    }

    /// Appends a string's offsets: a span of the command when one is found from `from` (or
    /// from the start), else the extras. Returns where the span starts, when it is one.
    fn span(&mut self, s: &str, from: usize) -> Option<Option<usize>> {
        if let Some(at) = self.find(s, from) {
            self.push(u32::try_from(at).ok().filter(|&v| v < EXTRA)?)?;
            self.push(u32::try_from(at + s.len()).ok()?)?;
            return Some(Some(at));
        }
        self.extra(s)?;
        Some(None)
    }

    /// Where `s` occurs in the command: right at `from` past blanks (the usual case: the next
    /// word), else searching from `from` and then from the start, while the budget lasts.
    fn find(&mut self, s: &str, from: usize) -> Option<usize> {
        if !self.ascii {
            return None;
        }
        if s.is_empty() {
            return Some(0);
        }
        let hay = self.command.as_bytes();
        let rest = hay.get(from..)?;
        let budget = self.budget;
        let blanks = rest
            .iter()
            .take(budget)
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        self.budget -= blanks;
        if rest.get(blanks..)?.starts_with(s.as_bytes()) {
            return Some(from + blanks);
        }
        for start in [from, 0] {
            let rest = hay.get(start..)?;
            if self.budget < rest.len() {
                return None;
            }
            self.budget -= rest.len();
            if let Some(i) = memchr::memmem::find(rest, s.as_bytes()) {
                return Some(start + i);
            }
            if start == 0 {
                break;
            }
        }
        None
    }

    /// Appends `s` to the extras and its offsets there.
    fn extra(&mut self, s: &str) -> Option<()> {
        let start = u32::try_from(self.extras_units)
            .ok()
            .filter(|&v| v < EXTRA)?;
        let units = if s.is_ascii() {
            s.len()
        } else {
            s.encode_utf16().count()
        };
        self.extras.push_str(s);
        self.extras_units += units;
        self.push(start | EXTRA)?;
        self.push(u32::try_from(self.extras_units).ok()?)
    }
}

/// Reads a layout back into the analysis's JSON value (the shape [`crate::analyze_json`]
/// writes), for tests that hold both crossings to the same answer. `None` when the layout is
/// malformed.
#[must_use]
pub fn read_json(layout: &[u32], command: &str, extras: &str) -> Option<serde_json::Value> {
    use serde_json::{json, Map, Value};
    let command: Vec<u16> = command.encode_utf16().collect();
    let extras: Vec<u16> = extras.encode_utf16().collect();
    let mut at = AT_BODY;
    let mut next = || -> Option<u32> {
        let v = *layout.get(at)?;
        at += 1;
        Some(v)
    };
    let string = |start: u32, end: u32| -> Option<Value> {
        if start == NULL {
            return Some(Value::Null);
        }
        let (from, s) = if start & EXTRA != 0 {
            (&extras, start & !EXTRA)
        } else {
            (&command, start)
        };
        let units = from.get(usize::try_from(s).ok()?..usize::try_from(end).ok()?)?;
        Some(Value::String(String::from_utf16(units).ok()?))
    };
    let flags = *layout.get(AT_FLAGS)?;
    let n_parts = *layout.get(AT_PARTS)?;
    let mut top = Map::new();
    let mut reasons = vec![];
    for (flag, key) in [
        (FLAG_UNSUPPORTED, "unsupported"),
        (FLAG_DENY, "deny"),
        (FLAG_REFUSED, "refused"),
    ] {
        if flags & flag != 0 {
            let (s, e) = (next()?, next()?);
            reasons.push((key, string(s, e)?));
        }
    }
    let mut parts = vec![];
    for _ in 0..n_parts {
        let pf = next()?;
        let argc = next()?;
        let (s, e) = (next()?, next()?);
        let text = string(s, e)?;
        let name = if pf & PART_NAME_IS_PROGRAM == 0 {
            let (s, e) = (next()?, next()?);
            Some(string(s, e)?)
        } else {
            None
        };
        let deny = if pf & PART_DENY != 0 {
            let (s, e) = (next()?, next()?);
            Some(string(s, e)?)
        } else {
            None
        };
        let open = if pf & PART_OPEN != 0 {
            let word = next()?;
            let (s, e) = (next()?, next()?);
            Some(json!({
                "index": word >> OPEN_INDEX_SHIFT,
                "any": word & OPEN_ANY != 0,
                "text": string(s, e)?
            }))
        } else {
            None
        };
        let effect = if pf & PART_EFFECT != 0 {
            let code = next()?;
            let (s, e) = (next()?, next()?);
            let option = string(s, e)?;
            let mut words = vec![];
            for _ in 0..next()? {
                words.push(Value::from(next()?));
            }
            let name = crate::effects::Effect::ALL
                .get(usize::try_from(code).ok()?)?
                .as_str();
            Some(json!({"effect": name, "option": option, "words": words}))
        } else {
            None
        };
        let mut argv = vec![];
        for _ in 0..argc {
            let (s, e) = (next()?, next()?);
            argv.push(string(s, e)?);
        }
        let name = name.or_else(|| argv.first().cloned())?;
        let mut part = Map::new();
        part.insert("text".into(), text);
        part.insert("argv".into(), Value::Array(argv));
        part.insert("name".into(), name);
        if pf & PART_DERIVED != 0 {
            part.insert("derived".into(), Value::Bool(true));
        }
        if let Some(d) = deny {
            part.insert("deny".into(), d);
        }
        if let Some(o) = open {
            part.insert("open".into(), o);
        }
        if pf & PART_DENY_OPEN != 0 {
            part.insert("denyOpen".into(), Value::Bool(true));
        }
        if let Some(e) = effect {
            part.insert("effect".into(), e);
        }
        parts.push(Value::Object(part));
    }
    let mut redirects = vec![];
    for _ in 0..next()? {
        let (s, e) = (next()?, next()?);
        let op = string(s, e)?;
        let (s, e) = (next()?, next()?);
        let target = string(s, e)?;
        let write = next()? == 1;
        redirects.push(json!({"op": op, "target": target, "write": write}));
    }
    if at != usize::try_from(*layout.first()?).ok()? {
        return None;
    }
    top.insert("parts".into(), Value::Array(parts));
    if !redirects.is_empty() {
        top.insert("redirects".into(), Value::Array(redirects));
    }
    top.insert(
        "metacharacters".into(),
        Value::Bool(flags & FLAG_METACHARACTERS != 0),
    );
    for (key, v) in reasons {
        top.insert(key.into(), v);
    }
    Some(Value::Object(top))
}

#[cfg(test)]
mod tests {
    use super::{read_json, write, EXTRA, NULL};
    use crate::limits::POLICY_ANALYSIS_LAYOUT_WORDS;
    use crate::shell::{analyze, tests::corpus};

    /// The facade's buffer, in words.
    const ROOM: usize = POLICY_ANALYSIS_LAYOUT_WORDS as usize;

    /// The layout of `command`, read back, against its JSON.
    fn round_trip(command: &str, room: usize) -> Option<String> {
        let analysis = analyze(command);
        let mut out = vec![0; room];
        let extras = write(&analysis, command, &mut out)?;
        let json: serde_json::Value = serde_json::from_str(&crate::analyze_json(command)).ok()?;
        assert_eq!(read_json(&out, command, &extras), Some(json), "{command:?}");
        Some(extras)
    }

    #[test]
    fn every_corpus_line_reads_back_as_its_json() {
        let mut extras = 0;
        for c in corpus() {
            extras += round_trip(&c, ROOM).map(|e| e.len()).unwrap_or(usize::MAX);
        }
        assert!(extras < usize::MAX);
    }

    #[test]
    fn strings_that_are_not_spans_go_to_the_extras() {
        // An unquoted word, a rule id, a non-ASCII command (offsets are UTF-16 units), a
        // redirection target that is not a static word, an unsupported line.
        for c in [
            "echo 'a b' c\\ d",
            "rm -rf /",
            "echo héllo 𝄞 > f",
            "ls > $x",
            "cat <<EOF\nx\nEOF",
            "echo $'\\u00e9'",
            "bash -c \"echo \\\"hi\\\"\"",
        ] {
            assert!(round_trip(c, ROOM).is_some(), "{c:?}");
        }
        assert_eq!(
            round_trip("echo héllo", ROOM).as_deref(),
            Some("echo hélloechohéllo")
        );
        let mut out = vec![0; 64];
        let extras = write(&analyze("ls > $x"), "ls > $x", &mut out);
        assert_eq!(extras.as_deref(), Some(""));
        assert!(out.contains(&NULL));
        assert!(!out.iter().any(|&v| v != NULL && v & EXTRA != 0));
    }

    #[test]
    fn a_layout_that_does_not_fit_is_refused() {
        let c = "ls -la && git status";
        let mut out = vec![0; 64];
        assert!(write(&analyze(c), c, &mut out).is_some());
        let need = usize::try_from(out[0]).unwrap_or(0);
        assert!(round_trip(c, need).is_some());
        assert!(round_trip(c, need - 1).is_none());
        assert!(round_trip(c, 0).is_none());
        let mut json = vec![7; 2];
        assert!(crate::analyze_into(c, &mut json).starts_with('{'));
        assert_eq!(json[0], 0);
    }

    #[test]
    fn the_span_search_is_budgeted() {
        // Thousands of escaped words, none a span of the command: the search stops at its
        // budget and the rest go to the extras, the same analysis either way.
        let c = "echo ".to_string() + &"a\\b ".repeat(3000);
        let extras = round_trip(&c, 1 << 16).unwrap_or_default();
        assert!(extras.len() >= 2 * 3000, "{}", extras.len());
        // Blanks before words that are not spans are charged too (each word re-reads them).
        let c = "echo".to_string() + &" ".repeat(100_000) + &" a\\b".repeat(3000);
        let extras = round_trip(&c, 1 << 16).unwrap_or_default();
        assert!(extras.len() >= 2 * 2000, "{}", extras.len());
    }
}
