//! Landlock elsewhere: the kernel feature exists only on Linux, so the ABI is 0 and every
//! restriction reports [`LandlockError::Unavailable`] (`capabilities` says no sandbox).

use std::path::Path;

use super::{Guarantees, LandlockError};

/// Always 0: there is no Landlock off Linux.
#[must_use]
pub fn abi_version() -> i32 {
    0
}

/// Always [`LandlockError::Unavailable`].
///
/// # Errors
/// [`LandlockError::Unavailable`].
pub fn restrict_self(
    _writable: &[&Path],
    _allow_network: bool,
) -> Result<Guarantees, LandlockError> {
    Err(LandlockError::Unavailable)
}

/// Always [`LandlockError::Unavailable`] (nothing is executed).
#[must_use]
pub fn exec_restricted(
    _writable: &[&Path],
    _allow_network: bool,
    _shell: &str,
    _command: &str,
) -> LandlockError {
    LandlockError::Unavailable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_restricted_off_linux() {
        assert_eq!(abi_version(), 0);
        assert!(matches!(
            restrict_self(&[], true),
            Err(LandlockError::Unavailable)
        ));
        assert!(matches!(
            exec_restricted(&[], true, "sh", "true"),
            LandlockError::Unavailable
        ));
    }
}
