//! Environment names that change what a command runs (`LD_PRELOAD`, `BASH_ENV`, `GIT_*`
//! configuration), and what a shell variable name is.

/// Environment names whose value changes which program runs, what a shell, interpreter or
/// loader runs at start, or which configuration (able to name commands) a tool reads.
const DANGEROUS_ENV: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "PROMPT_COMMAND",
    "HOME",
    "ZDOTDIR",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "SHELL",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PYTHONWARNINGS",
    "PYTHONINSPECT",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PERL5DB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "CLASSPATH",
    "GCONV_PATH",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTDOCFLAGS",
    "RUSTFLAGS",
    "CC",
    "CXX",
    "LD",
    "MAKEFLAGS",
    "MAKEFILES",
    "TERMINFO",
];

/// Prefixes of environment names that are dangerous as a family (`LD_PRELOAD`, exported bash
/// functions, git configuration, npm and cargo configuration).
const DANGEROUS_ENV_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "BASH_FUNC_",
    "GIT_",
    "npm_config_",
    "NPM_CONFIG_",
    "CARGO_",
];

/// `GIT_*` names that only label or trace (they cannot name a command or a configuration).
const INERT_GIT_ENV: &[&str] = &[
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_TRACE",
    "GIT_TRACE_PERFORMANCE",
    "GIT_TRACE_SETUP",
    "GIT_TRACE_PACKET",
    "GIT_CURL_VERBOSE",
    "GIT_TERMINAL_PROMPT",
    "GIT_FLUSH",
    "GIT_OPTIONAL_LOCKS",
];

/// Whether assigning `name` in front of a command can change what runs.
#[must_use]
pub fn is_dangerous_env(name: &str) -> bool {
    if INERT_GIT_ENV.contains(&name) {
        return false;
    }
    DANGEROUS_ENV.contains(&name) || DANGEROUS_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether `s` is a shell variable name.
#[must_use]
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}
