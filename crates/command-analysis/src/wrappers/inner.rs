//! Reading a wrapper's argv the way GNU `getopt_long` reads it, and where its inner command
//! starts ([`unwrap`]), including `env -S` strings split into words.

use super::{program, wrapper, Arg, Opt, Rest, Run, Wrapper};

/// The options read from a wrapper's argv.
#[derive(Debug, Default)]
struct Parsed {
    /// Each option given: its short letter (or `'\0'`), and the index of its value word or
    /// its attached value.
    given: Vec<(char, &'static str, Value, usize)>,
    /// Operand indexes (only when the wrapper permutes).
    operands: Vec<usize>,
    /// The first index after the options (when the wrapper does not permute).
    end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    None,
    Word(usize),
    Attached(String),
}

/// The long option `name` abbreviates, GNU style: an exact name, else the one option it is a
/// prefix of.
pub(super) fn long_option(opts: &'static [Opt], name: &str) -> Result<&'static Opt, String> {
    if let Some(o) = opts.iter().find(|o| !o.long.is_empty() && o.long == name) {
        return Ok(o);
    }
    let mut found = opts
        .iter()
        .filter(|o| !o.long.is_empty() && !name.is_empty() && o.long.starts_with(name));
    match (found.next(), found.next()) {
        (Some(o), None) => Ok(o),
        (Some(_), Some(_)) => Err(format!("--{name} is ambiguous")),
        _ => Err(format!("--{name} is not a known option")),
    }
}

/// Reads `w`'s options from `argv[1..]` as `getopt_long` would.
fn parse(w: &'static Wrapper, argv: &[String]) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        if a == "--" {
            i += 1;
            if w.permute {
                p.operands.extend(i..argv.len());
                i = argv.len();
            }
            break;
        }
        let is_option = (a.len() > 1 && a.starts_with('-')) || (a == "-" && w.dash);
        if !is_option {
            if w.permute {
                p.operands.push(i);
                i += 1;
                continue;
            }
            break;
        }
        if a == "-" {
            p.given.push(('-', "", Value::None, i));
            i += 1;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let at = i;
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let o = long_option(w.opts, name)?;
            let value = match (o.arg, attached) {
                (Arg::No, Some(_)) => return Err(format!("--{} takes no value", o.long)),
                (Arg::No | Arg::Optional, None) => Value::None,
                (_, Some(v)) => Value::Attached(v.to_string()),
                (Arg::Required, None) => {
                    i += 1;
                    if i >= argv.len() {
                        return Err(format!("--{} needs a value", o.long));
                    }
                    Value::Word(i)
                }
            };
            p.given.push((o.short, o.long, value, at));
            i += 1;
            continue;
        }
        let cluster = &a[1..];
        if w.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
            i += 1;
            continue;
        }
        let word = i;
        for (at, c) in cluster.char_indices() {
            let Some(o) = w.opts.iter().find(|o| o.short != '\0' && o.short == c) else {
                return Err(format!("-{c} is not a known option"));
            };
            let rest = &cluster[at + c.len_utf8()..];
            match o.arg {
                Arg::No => p.given.push((o.short, o.long, Value::None, word)),
                Arg::Optional => {
                    let v = if rest.is_empty() {
                        Value::None
                    } else {
                        Value::Attached(rest.to_string())
                    };
                    p.given.push((o.short, o.long, v, word));
                    break;
                }
                Arg::Required => {
                    let v = if rest.is_empty() {
                        i += 1;
                        if i >= argv.len() {
                            return Err(format!("-{c} needs a value"));
                        }
                        Value::Word(i)
                    } else {
                        Value::Attached(rest.to_string())
                    };
                    p.given.push((o.short, o.long, v, word));
                    break;
                }
            }
        }
        i += 1;
    }
    p.end = i;
    Ok(p)
}

/// What a wrapper command runs.
#[derive(Debug, PartialEq, Eq)]
pub enum Inner {
    /// `argv[start..]` is the inner command; `env` names the `NAME=value` words the wrapper
    /// assigns.
    Argv {
        /// Index of the inner command's program.
        start: usize,
        /// Names assigned by the wrapper.
        env: Vec<String>,
    },
    /// The word at this index is a command string run by a shell.
    Word(usize),
    /// The option value attached to the word at `index` (`--command=STRING`, `-cSTRING`) is
    /// a command string.
    Attached {
        /// The word holding it.
        index: usize,
        /// The string.
        text: String,
    },
    /// The words from this index, joined by spaces, are a command string.
    Joined(usize),
    /// `env -S STRING`: the string's words (split as env splits it) stand for the words
    /// `argv[1..=through]`; the command to analyse is `env` followed by them and the rest.
    Split {
        /// The words of the string.
        words: Vec<String>,
        /// The last word they replace.
        through: usize,
    },
    /// The program reads commands from standard input.
    Stdin,
    /// The wrapper's arguments could not be followed (why).
    Unknown(String),
}

/// What `argv` runs when its program is a wrapper; `None` when it is not one or runs nothing
/// (`sudo -i`, `env` alone, `su`).
#[must_use]
pub fn unwrap(argv: &[String]) -> Option<Inner> {
    let w = wrapper(argv.first()?)?;
    let name = program(argv.first()?);
    let p = match parse(w, argv) {
        Ok(p) => p,
        Err(why) => return Some(Inner::Unknown(format!("{name}: {why}"))),
    };
    if name == "env" {
        if let Some((_, _, v, at)) = p.given.iter().find(|(s, _, _, _)| *s == 'S') {
            let (through, text) = match v {
                Value::Word(i) => (*i, argv.get(*i).cloned().unwrap_or_default()),
                Value::Attached(t) => (*at, t.clone()),
                Value::None => return Some(Inner::Unknown("env -S without a value".into())),
            };
            // Options before -S are kept by re-reading the words after it in their place.
            return Some(match split_string(&text) {
                Ok(words) => Inner::Split { words, through },
                Err(why) => Inner::Unknown(format!("env -S {why}")),
            });
        }
    }
    let option_value = |c: char| {
        p.given.iter().rev().find_map(|(s, _, v, at)| match v {
            _ if *s != c => None,
            Value::Word(i) => Some(Inner::Word(*i)),
            Value::Attached(t) => Some(Inner::Attached {
                index: *at,
                text: t.clone(),
            }),
            Value::None => None,
        })
    };
    let first_operand = if w.permute {
        p.operands.first().copied().unwrap_or(argv.len())
    } else {
        p.end
    };
    let inner = match w.run {
        Run::Argv {
            operands,
            assignments,
        } => {
            let mut i = first_operand + operands;
            let mut env = Vec::new();
            if assignments {
                // Like `env` itself, any `NAME=value` word with a name counts (exported bash
                // functions are named `BASH_FUNC_f%%`).
                while let Some((n, _)) = argv.get(i).and_then(|a| a.split_once('=')) {
                    if n.is_empty() || n.starts_with('-') {
                        break;
                    }
                    env.push(n.to_string());
                    i += 1;
                }
            }
            Inner::Argv { start: i, env }
        }
        Run::Text {
            option,
            operands,
            rest,
        } => {
            if let Some(found) = option_value(option) {
                return Some(found);
            }
            let i = first_operand + operands;
            let o = w.opts.iter().find(|o| o.short == option);
            let long = o.map_or("", |o| o.long);
            match argv.get(i).map(String::as_str) {
                Some(a)
                    if a == format!("-{option}")
                        || (!long.is_empty() && a == format!("--{long}")) =>
                {
                    Inner::Word(i + 1)
                }
                _ => match rest {
                    Rest::Argv => Inner::Argv {
                        start: i,
                        env: Vec::new(),
                    },
                    Rest::Joined => Inner::Joined(i),
                    Rest::Stdin => Inner::Stdin,
                    Rest::Nothing => return None,
                },
            }
        }
        Run::Joined { exec } => {
            if p.given.iter().any(|(s, _, _, _)| *s == exec) {
                Inner::Argv {
                    start: first_operand,
                    env: Vec::new(),
                }
            } else {
                Inner::Joined(first_operand)
            }
        }
    };
    match &inner {
        Inner::Argv { start, .. } | Inner::Word(start) | Inner::Joined(start)
            if *start >= argv.len() =>
        {
            None
        }
        _ => Some(inner),
    }
}

/// The words GNU `env -S STRING` makes of `STRING` (coreutils' `env -S/--split-string`
/// syntax): blanks (space, tab, newline, `\v`, `\f`, `\r`) separate words; in single quotes
/// only `\\` and `\'` are escapes; outside them `\"`, `\'`, `\\`, `\#`, `\$`, `\f`, `\n`,
/// `\r`, `\t`, `\v` stand for one character, `\_` for a blank (a separator outside double
/// quotes, a space inside), and `\c` (not in double quotes) ends the string; a `#` that begins
/// a word begins a comment. `${NAME}` outside single quotes is the environment's value, which
/// the analysis does not know, so it is `Err` (the command needs approval), as are the strings
/// `env` itself refuses (`$NAME` without braces, another escape, an open quote): nothing runs
/// then, but the analysis does not claim to know that.
fn split_string(text: &str) -> Result<Vec<String>, &'static str> {
    const BLANKS: &[char] = &[' ', '\t', '\n', '\u{b}', '\u{c}', '\r'];
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has begun (`''` is an empty word).
    let mut started = false;
    let mut chars = text.chars();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        if single {
            match c {
                '\'' => single = false,
                '\\' => match chars.clone().next() {
                    Some(e @ ('\\' | '\'')) => {
                        chars.next();
                        word.push(e);
                    }
                    _ => word.push('\\'),
                },
                _ => word.push(c),
            }
            continue;
        }
        match c {
            '\'' if !double => {
                single = true;
                started = true;
            }
            '"' => {
                double = !double;
                started = true;
            }
            '$' => return Err("with a variable (its value is the environment's)"),
            '#' if !double && !started => break,
            '\\' => {
                let e = chars.next().ok_or("with an escape env refuses")?;
                let ch = match e {
                    '"' | '\'' | '\\' | '#' | '$' => e,
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'v' => '\u{b}',
                    '_' if double => ' ',
                    '_' => {
                        if started {
                            words.push(std::mem::take(&mut word));
                            started = false;
                        }
                        continue;
                    }
                    'c' if !double => break,
                    _ => return Err("with an escape env refuses"),
                };
                word.push(ch);
                started = true;
            }
            c if !double && BLANKS.contains(&c) => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if single || double {
        return Err("with a quote left open");
    }
    if started {
        words.push(word);
    }
    Ok(words)
}
