//! Process trees on Windows: a Job Object that kills what it holds when terminated or closed.

use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::process::ExitStatus;

use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};

/// The child's process handle, to assign to the job.
pub type RawProcess = RawHandle;

pub(super) fn raw_process(child: &std::process::Child) -> Option<RawProcess> {
    Some(child.as_raw_handle())
}

pub(super) fn raw_tokio_process(child: &tokio::process::Child) -> Option<RawProcess> {
    child.raw_handle()
}

pub(super) fn prepare(_cmd: &mut std::process::Command) {}

pub(super) fn prepare_server(_cmd: &mut tokio::process::Command) {}

/// The child's Job Object (`None` when it could not be made or assigned: then only the child
/// itself can be killed).
#[derive(Debug)]
pub(super) struct Tree {
    job: Option<OwnedHandle>,
}

impl Tree {
    pub(super) fn attach(_pid: u32, handle: Option<RawProcess>) -> Self {
        Self {
            job: handle.and_then(new_job),
        }
    }

    pub(super) fn terminate(&self) {}

    pub(super) fn kill(&self) -> bool {
        // SAFETY: the job handle is owned and open.
        self.job
            .as_ref()
            .is_some_and(|job| unsafe { TerminateJobObject(job.as_raw_handle(), 1) } != 0)
    }
}

/// A new job that kills its processes when closed, holding `process`.
fn new_job(process: RawProcess) -> Option<OwnedHandle> {
    // SAFETY: no security attributes and no name; the returned handle is checked, then owned.
    let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if raw.is_null() {
        return None;
    }
    // SAFETY: `raw` is a fresh, valid handle that nothing else owns.
    let job = unsafe { OwnedHandle::from_raw_handle(raw) };
    // SAFETY: an all-zero limit structure is valid (no limits); only the flag is set.
    let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    let size = u32::try_from(std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>()).ok()?;
    // SAFETY: `info` outlives the call and `size` is its size; both handles are open.
    let ok = unsafe {
        SetInformationJobObject(
            job.as_raw_handle(),
            JobObjectExtendedLimitInformation,
            std::ptr::from_ref(&info).cast(),
            size,
        ) != 0
            && AssignProcessToJobObject(job.as_raw_handle(), process) != 0
    };
    ok.then_some(job)
}

/// The job holds the tree: nothing to list.
pub(super) fn descendants(_root: u32) -> Vec<u32> {
    Vec::new()
}

/// The job holds the tree: nothing to kill one by one.
pub(super) fn kill_tree_of(_root: u32) -> bool {
    false
}

pub(super) fn exit_code(st: ExitStatus) -> i32 {
    st.code().unwrap_or(1)
}
