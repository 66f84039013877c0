//! User-level named locks: GET_LOCK, RELEASE_LOCK, RELEASE_ALL_LOCKS, IS_FREE_LOCK and
//! IS_USED_LOCK.
//!
//! The lock table is process-wide (one server per process). A session may hold a lock several
//! times (each GET_LOCK needs its own RELEASE_LOCK); all of a session's locks are released when
//! it ends. Names are compared case-insensitively and limited to 64 characters, as in MySQL.
//! Deadlock detection between sessions waiting on each other is not implemented: such waits end
//! by their timeouts (or KILL QUERY).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use common::codes::ErrorCode;
use common::{Error, Result, Value, Warning};

/// 3057 ER_USER_LOCK_WRONG_NAME.
const ER_USER_LOCK_WRONG_NAME: ErrorCode = ErrorCode {
    num: 3057,
    sqlstate: "42000",
    name: "ER_USER_LOCK_WRONG_NAME",
};

#[derive(Default)]
struct Table {
    /// lower-cased name -> (owner connection id, times acquired)
    held: HashMap<String, (u64, u64)>,
}

fn table() -> &'static (Mutex<Table>, Condvar) {
    static T: OnceLock<(Mutex<Table>, Condvar)> = OnceLock::new();
    T.get_or_init(|| (Mutex::new(Table::default()), Condvar::new()))
}

/// True for the lock function names handled by [`call`].
pub fn is_lock_function(name: &str) -> bool {
    matches!(
        name,
        "GET_LOCK" | "RELEASE_LOCK" | "RELEASE_ALL_LOCKS" | "IS_FREE_LOCK" | "IS_USED_LOCK"
    )
}

fn lock_name(v: &Value) -> Result<String> {
    let s = match v {
        Value::Null => String::new(),
        v => func::convert::to_string_value(v).unwrap_or_default(),
    };
    if s.is_empty() || s.chars().count() > 64 {
        return Err(Error::new(
            ER_USER_LOCK_WRONG_NAME,
            format!("Incorrect user-level lock name '{s}'."),
        ));
    }
    Ok(s.to_lowercase())
}

/// Evaluates a lock function for connection `conn` (argument counts already checked).
pub fn call(
    name: &str,
    args: &[Value],
    conn: u64,
    killed: &AtomicBool,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let (m, cv) = table();
    let mut t = m
        .lock()
        .map_err(|_| Error::internal("user lock table poisoned"))?;
    match name {
        "GET_LOCK" => {
            let key = lock_name(&args[0])?;
            let timeout = func::convert::to_f64(&args[1], w).unwrap_or(0.0);
            let deadline = (timeout >= 0.0)
                .then(|| Instant::now() + Duration::from_secs_f64(timeout.min(31_536_000.0)));
            // Reported to the thread pool (outside the table mutex) once the lock is busy.
            let mut waiting: Option<common::wait::WaitGuard> = None;
            loop {
                match t.held.get_mut(&key) {
                    None => {
                        t.held.insert(key, (conn, 1));
                        return Ok(Value::Int(1));
                    }
                    Some((owner, count)) if *owner == conn => {
                        *count += 1;
                        return Ok(Value::Int(1));
                    }
                    Some(_) => {}
                }
                if killed.load(Ordering::Relaxed) {
                    return Ok(Value::Null);
                }
                let wait = match deadline {
                    Some(d) => {
                        let now = Instant::now();
                        if now >= d {
                            return Ok(Value::Int(0));
                        }
                        (d - now).min(Duration::from_millis(50))
                    }
                    None => Duration::from_millis(50),
                };
                if waiting.is_none() {
                    drop(t);
                    waiting = Some(common::wait::guard(common::wait::WaitType::UserLock));
                    t = m
                        .lock()
                        .map_err(|_| Error::internal("user lock table poisoned"))?;
                    continue;
                }
                t = cv
                    .wait_timeout(t, wait)
                    .map_err(|_| Error::internal("user lock table poisoned"))?
                    .0;
            }
        }
        "RELEASE_LOCK" => {
            let key = lock_name(&args[0])?;
            let r = match t.held.get_mut(&key) {
                None => Value::Null,
                Some((owner, _)) if *owner != conn => Value::Int(0),
                Some((_, count)) => {
                    *count -= 1;
                    if *count == 0 {
                        t.held.remove(&key);
                        cv.notify_all();
                    }
                    Value::Int(1)
                }
            };
            Ok(r)
        }
        "RELEASE_ALL_LOCKS" => {
            let n = release_all_locked(&mut t, conn);
            if n > 0 {
                cv.notify_all();
            }
            Ok(Value::Int(n as i64))
        }
        "IS_FREE_LOCK" => {
            let key = lock_name(&args[0])?;
            Ok(Value::Int(!t.held.contains_key(&key) as i64))
        }
        _ => {
            let key = lock_name(&args[0])?;
            Ok(t.held
                .get(&key)
                .map_or(Value::Null, |(owner, _)| Value::UInt(*owner)))
        }
    }
}

fn release_all_locked(t: &mut Table, conn: u64) -> u64 {
    let mut n = 0;
    t.held.retain(|_, (owner, count)| {
        if *owner == conn {
            n += *count;
            false
        } else {
            true
        }
    });
    n
}

/// Releases every lock of connection `conn` (at session end).
pub fn release_all(conn: u64) {
    let (m, cv) = table();
    if let Ok(mut t) = m.lock() {
        if release_all_locked(&mut t, conn) > 0 {
            cv.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn named_locks() {
        let k = AtomicBool::new(false);
        let w = &mut vec![];
        let c = |n: &str, a: &[Value], conn: u64, w: &mut Vec<Warning>| {
            call(n, a, conn, &k, w).unwrap()
        };
        assert_eq!(
            c("GET_LOCK", &[s("ul_t1"), Value::Int(0)], 9001, w),
            Value::Int(1)
        );
        assert_eq!(
            c("GET_LOCK", &[s("UL_T1"), Value::Int(0)], 9001, w),
            Value::Int(1)
        );
        assert_eq!(
            c("GET_LOCK", &[s("ul_t1"), Value::Int(0)], 9002, w),
            Value::Int(0)
        );
        assert_eq!(c("IS_FREE_LOCK", &[s("ul_t1")], 9002, w), Value::Int(0));
        assert_eq!(c("IS_USED_LOCK", &[s("ul_t1")], 9002, w), Value::UInt(9001));
        assert_eq!(c("RELEASE_LOCK", &[s("ul_t1")], 9002, w), Value::Int(0));
        assert_eq!(c("RELEASE_LOCK", &[s("ul_t1")], 9001, w), Value::Int(1));
        assert_eq!(c("RELEASE_ALL_LOCKS", &[], 9001, w), Value::Int(1));
        assert_eq!(c("RELEASE_LOCK", &[s("ul_t1")], 9001, w), Value::Null);
        assert_eq!(c("IS_USED_LOCK", &[s("ul_t1")], 9002, w), Value::Null);
        assert!(call("GET_LOCK", &[Value::Null, Value::Int(0)], 1, &k, w).is_err());
    }
}
