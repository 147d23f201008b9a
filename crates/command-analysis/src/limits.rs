//! Every cap of the command analysis, as typed constants with their units in the name. All are
//! fixed (no host sets them), and each says what happens past it.
//!
//! They are defined here, beside the analysis they bound, and nowhere else: the engine
//! re-exports them from its own `limits.rs` (`prism_engine::limits`), where its users and the
//! binding read them with every other limit.

/// The longest command (UTF-8 bytes) the shell analysis parses. A longer command is not
/// analysed and is refused (a deny: a denied command could hide in it). Fixed at 256 KiB.
pub const POLICY_ANALYSIS_MAX_COMMAND_BYTES: usize = 256 * 1024;

/// How deeply `bash -c` strings, `eval` arguments and wrappers may nest inside one another.
/// Deeper commands are refused (a deny: what lies past the cap was never looked at). Fixed
/// at 8.
pub const POLICY_ANALYSIS_MAX_NESTING: usize = 8;

/// The most simple commands one analysis reports; past it the command is refused. Fixed at
/// 4,096.
pub const POLICY_ANALYSIS_MAX_PARTS: usize = 4_096;

/// How deep the shell analysis walks the syntax tree (every `$(`, `"`, `${`, `(`, `{`, `if`,
/// pipeline or list is a level or two; a line whose `(`, `{` and `[` nest deeper is refused
/// before parsing). Deeper syntax is not walked and the command is refused (a deny: what lies
/// past the cap could be a denied command): the walk's recursion, and so its stack use, is
/// bounded whatever the input. Fixed at 128.
pub const POLICY_ANALYSIS_MAX_DEPTH: usize = 128;

/// The most bytes one analysis parses: the command line plus every `sh -c` string, `eval`
/// argument and unmodelled substitution inside it that is parsed again. Past it the command
/// is refused. Fixed at 1 MiB (four times [`POLICY_ANALYSIS_MAX_COMMAND_BYTES`]).
pub const POLICY_ANALYSIS_MAX_PARSED_BYTES: usize = 4 * POLICY_ANALYSIS_MAX_COMMAND_BYTES;

/// The most bytes of command text and argv one analysis reports (nested substitutions repeat
/// their text in every enclosing command). Past it, further commands are still checked against
/// the default deny rules but reported without their text, and the command is refused.
/// Fixed at 1 MiB.
pub const POLICY_ANALYSIS_MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// The longest command line (UTF-8 bytes) the analysis's fast path for plain words splits
/// without the grammar; a longer one goes to the parser. Fixed at 4 KiB.
pub const POLICY_PLAIN_MAX_BYTES: usize = 4 * 1024;

/// How deep subshells, groups, clauses and substitutions may nest in a line the analysis's
/// fast path reads; a line nested deeper goes to the parser. Fixed at 8.
pub const POLICY_PLAIN_MAX_NESTING: usize = 8;

/// The most words bash brace expansion may turn one simple command's words (or one
/// redirection target) into (`rm -{r,f} /` is two). Past it the command is refused: a denied
/// name could be among the words not expanded. Fixed at 64.
pub const POLICY_ANALYSIS_MAX_BRACE_WORDS: usize = 64;

/// The longest word (UTF-8 bytes of source text) the analysis brace-expands; a command with a
/// longer word that has a brace to expand is refused. Fixed at 1 KiB.
pub const POLICY_ANALYSIS_MAX_BRACE_WORD_BYTES: usize = 1024;

/// The most bytes of a `${...}` expansion, from its `${`, the analysis reads to find whether it
/// is a parameter transformation (`${name[subscript]@OP}`); one whose name and subscript run
/// past it needs approval. It keeps the scan linear in the command. Fixed at 1 KiB.
pub const POLICY_ANALYSIS_MAX_EXPANSION_HEAD_BYTES: usize = 1024;

/// The most syntax nodes of one test expression (`[[ ... ]]`) the analysis inspects for
/// arithmetic operands that could run code; past it the command is refused. Fixed at 512.
pub const POLICY_ANALYSIS_MAX_TEST_NODES: usize = 512;

/// The most steps (pattern length times candidate length) spent deciding whether a glob in a
/// command word could expand to a name a deny rule matches; past it the answer is "it could"
/// (fail closed: the command is denied). Fixed at 64 Ki.
pub const POLICY_OPEN_WORD_MAX_STEPS: usize = 64 * 1024;

/// How deep braces may nest inside one another in a word the shell analysis brace-expands;
/// a deeper word is not expanded (the command is unsupported). Fixed at 32.
pub const POLICY_BRACE_MAX_NESTING: usize = 32;

/// Words (`u32`) of the buffer the facade lends the engine for one analysis as numbers
/// ([`layout`](crate::layout)): every corpus command fits many times over; a larger analysis crosses as
/// JSON instead. Fixed at 8 Ki words (32 KiB).
pub const POLICY_ANALYSIS_LAYOUT_WORDS: u32 = 8 * 1024;

/// Bytes of the command the layout may search per byte of command when it looks for a string
/// as a span of the command (past the budget, strings are copied), so writing it stays linear.
pub const POLICY_ANALYSIS_LAYOUT_SEARCH_PER_BYTE: usize = 4;

/// Bytes searched on top of the per-byte budget (short commands search freely). Fixed at 4 KiB.
pub const POLICY_ANALYSIS_LAYOUT_SEARCH_BASE: usize = 4 * 1024;
