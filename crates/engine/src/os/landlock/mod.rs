//! The Landlock half of the Landlock sandbox backend: restricting the calling thread (and the
//! processes it starts afterwards) to read-only access outside the writable roots, no TCP
//! bind/connect unless allowed, and (ABI 6+) no signals or abstract UNIX sockets outside the
//! sandbox.
//!
//! The kernel's ABI is detected with the `landlock_create_ruleset` version query (securityfs
//! need not be mounted). Every access requested is a hard requirement: the ruleset is enforced
//! fully or not at all, and [`restrict_self`] reports exactly what it enforced.
//!
//! What Landlock cannot deny: no access right of any ABI (1 to 10) covers metadata changes, so
//! `chmod`, `chown`, `utimensat` and `setxattr`/`removexattr` (and their `f*`/`l*`/`*at`
//! forms) still work on files outside the roots wherever the user's own permissions allow them
//! (files the user owns, or may write for `touch` and user xattrs). Seccomp cannot tell inside
//! from outside (it sees no paths), and denying those calls everywhere would break `chmod +x`,
//! `touch`, `tar x` and package installs inside the roots, so they stay allowed and
//! [`Guarantees::unconfined_outside_roots`] names them, along with what older ABIs lack
//! (`truncate` before ABI 3, device `ioctl` before ABI 5, connecting to pathname UNIX sockets
//! before ABI 9). The bubblewrap backend (read-only bind of `/`) denies all of these.

use serde::Serialize;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as platform;
// Compiled on Linux for its tests too.
#[cfg(any(test, not(target_os = "linux")))]
mod other;
#[cfg(not(target_os = "linux"))]
use other as platform;

pub use platform::{abi_version, exec_restricted, restrict_self};

/// Why the Landlock sandbox cannot be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LandlockError {
    /// The kernel has no Landlock (or it is disabled).
    #[error("landlock is not available on this kernel")]
    Unavailable,
    /// Denying network access needs ABI 4 (Linux 6.7).
    #[error("landlock ABI {abi} cannot deny network access (ABI 4 or later is needed)")]
    NetworkUnsupported {
        /// The kernel's ABI.
        abi: i32,
    },
    /// Building or enforcing the ruleset failed.
    #[error("landlock ruleset failed: {message}")]
    Ruleset {
        /// The library's message.
        message: String,
    },
}

impl LandlockError {
    /// [`SANDBOX_UNAVAILABLE_CODE`](crate::coding::sandbox_run::SANDBOX_UNAVAILABLE_CODE)
    /// when the kernel lacks what was asked, otherwise
    /// [`SANDBOX_EXECUTION_CODE`](crate::coding::sandbox_run::SANDBOX_EXECUTION_CODE).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unavailable | Self::NetworkUnsupported { .. } => {
                crate::coding::sandbox_run::SANDBOX_UNAVAILABLE_CODE
            }
            Self::Ruleset { .. } => crate::coding::sandbox_run::SANDBOX_EXECUTION_CODE,
        }
    }
}

/// What a restriction enforces.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Guarantees {
    /// The kernel's Landlock ABI.
    pub abi: i32,
    /// Writes only beneath the writable paths (plus `/dev/null`, `/dev/zero`, `/dev/tty`).
    pub filesystem_writes_confined: bool,
    /// Nothing outside the writable paths can be changed in any way (`capabilities.filesystem
    /// .readOnlyRoot`): writes confined and no call in `unconfined_outside_roots`. Always
    /// `false` under Landlock, since metadata changes stay possible.
    pub read_only_root: bool,
    /// TCP bind and connect denied (UDP and UNIX sockets are not covered by Landlock).
    pub tcp_denied: bool,
    /// Signals and abstract UNIX sockets confined to the sandbox (ABI 6+).
    pub ipc_scoped: bool,
    /// Metadata changes (mode, owner, times, extended attributes) confined to the writable
    /// paths: always `false`, no Landlock ABI has access rights for them.
    pub metadata_changes_confined: bool,
    /// Operations on files outside the writable paths that this ABI's Landlock does not deny
    /// (see the module documentation), by system-call family.
    pub unconfined_outside_roots: Vec<&'static str>,
    /// What the network restriction covers, in words (`capabilities.networkScope`).
    pub network_scope: &'static str,
}

/// `capabilities.networkScope` of a sandbox at ABI `version`: the host network, or TCP
/// denied with what is not (UDP, and pathname UNIX sockets before ABI 9).
#[must_use]
pub fn network_scope(version: i32, tcp_denied: bool) -> &'static str {
    match (tcp_denied, version < 9) {
        (false, _) => "host network",
        (true, true) => "tcp bind and connect denied; UDP and UNIX sockets are not restricted",
        (true, false) => "tcp bind and connect denied; UDP is not restricted",
    }
}

/// Whether the root is read-only in every sense: writes confined, and no metadata change or
/// other call left unconfined outside the writable paths.
#[must_use]
pub fn read_only_root(writes_confined: bool, unconfined: &[&str]) -> bool {
    writes_confined && unconfined.is_empty()
}

/// The metadata-changing system-call families no Landlock ABI can deny.
const METADATA_CALLS: [&str; 5] = ["chmod", "chown", "utimes", "setxattr", "removexattr"];

/// What Landlock at ABI `version` leaves allowed on files outside the writable paths.
#[must_use]
pub fn unconfined_outside_roots(version: i32) -> Vec<&'static str> {
    let mut out = METADATA_CALLS.to_vec();
    if version < 3 {
        out.push("truncate");
    }
    if version < 5 {
        out.push("ioctl on devices");
    }
    if version < 9 {
        out.push("connect to pathname UNIX sockets");
    }
    out
}

/// Whether Landlock at ABI `version` can give the sandbox asked for (TCP denied unless
/// `allow_network`).
///
/// # Errors
/// [`LandlockError::Unavailable`] below ABI 1, [`LandlockError::NetworkUnsupported`] when the
/// network must be denied below ABI 4.
pub fn check_support(version: i32, allow_network: bool) -> Result<(), LandlockError> {
    if version < 1 {
        return Err(LandlockError::Unavailable);
    }
    if !allow_network && version < 4 {
        return Err(LandlockError::NetworkUnsupported { abi: version });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn support_needs_abi_1_and_abi_4_to_deny_the_network() {
        assert!(matches!(
            check_support(0, true),
            Err(LandlockError::Unavailable)
        ));
        assert!(matches!(
            check_support(3, false),
            Err(LandlockError::NetworkUnsupported { abi: 3 })
        ));
        assert!(check_support(3, true).is_ok());
        assert!(check_support(4, false).is_ok());
    }

    #[test]
    fn unconfined_operations_follow_the_abi() {
        assert_eq!(
            unconfined_outside_roots(7),
            [
                "chmod",
                "chown",
                "utimes",
                "setxattr",
                "removexattr",
                "connect to pathname UNIX sockets"
            ]
        );
        assert!(unconfined_outside_roots(1).contains(&"truncate"));
        assert!(unconfined_outside_roots(4).contains(&"ioctl on devices"));
        assert!(!unconfined_outside_roots(5).contains(&"ioctl on devices"));
        assert_eq!(unconfined_outside_roots(10), METADATA_CALLS);
    }
}
