//! One word of a simple command as the shell analysis reads it: the unit both the
//! tree-sitter walk ([`crate::shell`]) and the plain-command parser ([`crate::plain`]) produce.

use std::borrow::Cow;

/// One word of a simple command.
#[derive(Clone)]
pub(super) struct Word<'s> {
    /// Its value when it has no expansion (borrowed from the source when it is spelled as
    /// written).
    pub(super) value: Option<Cow<'s, str>>,
    /// Its source text (borrowed, except for the words of an expansion or a split).
    pub(super) raw: Cow<'s, str>,
    /// Byte offsets in the analysed source.
    pub(super) start: usize,
    pub(super) end: usize,
    /// Whether bash may expand it into other words: an unquoted glob (`*`, `?`, `[`) or
    /// brace (`{a,b}`) character.
    pub(super) pattern: bool,
}
