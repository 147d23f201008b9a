//! The abort flags of shell commands a host started, by job id.
//!
//! A host registers a job before it starts the command (so an abort that arrives before the
//! command runs is not lost), runs the command with the job's flag, and ends the job when the
//! command settles. Ids are process-wide and never reused.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

fn jobs() -> &'static Mutex<HashMap<u32, Arc<AtomicBool>>> {
    static JOBS: OnceLock<Mutex<HashMap<u32, Arc<AtomicBool>>>> = OnceLock::new();
    JOBS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Registers a job and returns its id.
#[must_use]
pub fn register() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut jobs) = jobs().lock() {
        jobs.insert(id, Arc::new(AtomicBool::new(false)));
    }
    id
}

/// Sets job `id`'s abort flag (nothing for an unknown or ended job).
pub fn abort(id: u32) {
    if let Ok(jobs) = jobs().lock() {
        if let Some(flag) = jobs.get(&id) {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// Job `id`'s abort flag; a fresh, unset flag for an unknown job.
#[must_use]
pub fn flag(id: u32) -> Arc<AtomicBool> {
    jobs()
        .lock()
        .ok()
        .and_then(|jobs| jobs.get(&id).cloned())
        .unwrap_or_else(|| Arc::new(AtomicBool::new(false)))
}

/// Forgets job `id` (its command settled).
pub fn end(id: u32) {
    if let Ok(mut jobs) = jobs().lock() {
        jobs.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abort_before_the_run_reaches_its_flag_and_an_ended_job_is_forgotten() {
        let id = register();
        let other = register();
        abort(id);
        assert!(flag(id).load(Ordering::Relaxed));
        assert!(!flag(other).load(Ordering::Relaxed));
        end(id);
        end(other);
        assert!(!flag(id).load(Ordering::Relaxed));
        abort(id);
        assert!(!flag(id).load(Ordering::Relaxed));
    }
}
