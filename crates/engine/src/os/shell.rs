//! The shell that runs a command line when the host names none (`shellPath`, `$SHELL`).
//! The policy's command analysis is bash's grammar on every platform, so it is bash
//! everywhere: `/bin/bash` (else `sh`) on Unix; on Windows the first `bash.exe` on `PATH`
//! (Git for Windows puts one there), never WSL's launcher in the system directory.

use std::path::PathBuf;

/// What to install when Windows has no bash.
pub const NO_BASH_MESSAGE: &str = "No bash found on PATH: the shell tool needs bash. Install Git \
for Windows (it provides bash.exe) and put its bin directory on PATH, or set shellPath.";

/// The default shell, or why there is none ([`NO_BASH_MESSAGE`]).
///
/// # Errors
/// On Windows, when no `bash.exe` is on `PATH`.
#[cfg(unix)]
pub fn default_shell() -> Result<PathBuf, &'static str> {
    let bash = std::path::Path::new("/bin/bash");
    Ok(if bash.exists() {
        bash.to_path_buf()
    } else {
        PathBuf::from("sh")
    })
}

/// See the Unix version.
///
/// # Errors
/// [`NO_BASH_MESSAGE`] when no `bash.exe` is on `PATH`.
#[cfg(windows)]
pub fn default_shell() -> Result<PathBuf, &'static str> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| {
            // C:\Windows\System32\bash.exe starts WSL, another system with other paths.
            !dir.ends_with("System32") && !dir.ends_with("system32")
        })
        .map(|dir| dir.join("bash.exe"))
        .find(|p| p.is_file())
        .ok_or(NO_BASH_MESSAGE)
}
