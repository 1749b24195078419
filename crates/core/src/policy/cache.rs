//! A bounded cache of argument checks: what [`super::Policy::check_arguments`] gave
//! for a tool and the exact bytes of its arguments. Agents repeat calls a lot (the
//! same file read again, the same command run again), and a check parses the
//! arguments, converts them for the schema validator and matches path and URL rules:
//! far more than a hash and a comparison of a few dozen bytes.
//!
//! The cache is a table of a fixed number of slots, each holding two checks, chosen by
//! a hash of the tool and the arguments; a new check takes the place of the one of
//! its slot used least recently. A check is given only when its tool and arguments
//! are the same bytes as those asked about, so what it gives is exactly what the
//! check gives. Only small checks are kept (tool names up to [`MAX_TOOL`] bytes,
//! arguments up to [`MAX_ARGS`], up to [`MAX_VIOLATIONS`] violations), so the memory
//! it takes has a fixed bound, whatever the transcript.
//! Each slot has its own lock, so threads checking calls at once rarely wait; one
//! table for all threads, as a call repeated is often parsed on another thread than
//! the call before it (a table per thread gave fewer hits, and cost more than the
//! locks). The table is made at the second check: a process that checks one call (a
//! guard's hook event) does not pay for it.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::finding::ArgumentViolation;

/// The number of slots: a power of two.
const SLOTS: usize = 1 << 13;
/// The longest arguments kept, in bytes.
pub(super) const MAX_ARGS: usize = 256;
/// The longest tool name kept, in bytes.
pub(super) const MAX_TOOL: usize = 128;
/// The most violations of a check kept.
pub(super) const MAX_VIOLATIONS: usize = 4;

/// One check kept: its tool, its arguments and what it gave.
#[derive(Debug)]
struct Entry {
    tool: Box<str>,
    args: Box<[u8]>,
    found: Vec<ArgumentViolation>,
}

/// The cache of the argument checks of one policy.
pub(super) struct ArgsCache {
    /// Seeded anew for each cache: foldhash, which costs a fraction of SipHash on a
    /// few dozen bytes. Keys made to collide only cost the checks they evict.
    hasher: hashbrown::DefaultHashBuilder,
    /// By slot, its checks; made at the second check.
    slots: OnceLock<Box<[Slot]>>,
    /// Whether a check was asked for.
    asked: AtomicBool,
}

/// A slot of the table: its checks, the one used most recently first.
type Slot = Mutex<[Option<Entry>; 2]>;

impl std::fmt::Debug for ArgsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgsCache").finish_non_exhaustive()
    }
}

impl Default for ArgsCache {
    fn default() -> Self {
        ArgsCache {
            hasher: hashbrown::DefaultHashBuilder::default(),
            slots: OnceLock::new(),
            asked: AtomicBool::new(false),
        }
    }
}

impl ArgsCache {
    /// The slot of the check of `tool` with `args`, in the table `slots`.
    fn slot<'s>(&self, slots: &'s [Slot], tool: &str, args: &[u8]) -> &'s Slot {
        let mut hasher = self.hasher.build_hasher();
        hasher.write(tool.as_bytes());
        hasher.write_u8(0xff);
        hasher.write(args);
        // Truncated to the slot's bits: `SLOTS` is a power of two.
        let at = hasher.finish() as usize & (SLOTS - 1);
        &slots[at]
    }

    /// What `check` gives for `tool` with `args`: kept from an earlier call with
    /// the same tool and arguments, or computed (and kept, if small).
    pub(super) fn get_or_check(
        &self,
        tool: &str,
        args: &[u8],
        check: impl FnOnce() -> Vec<ArgumentViolation>,
    ) -> Vec<ArgumentViolation> {
        if args.len() > MAX_ARGS || tool.len() > MAX_TOOL {
            return check();
        }
        // Read before it is written, so that the threads do not write one line of
        // memory on every check.
        if !self.asked.load(Ordering::Relaxed) && !self.asked.swap(true, Ordering::Relaxed) {
            return check();
        }
        let slots =
            (self.slots).get_or_init(|| (0..SLOTS).map(|_| Mutex::new([None, None])).collect());
        let slot = self.slot(slots, tool, args);
        let same = |entry: &Option<Entry>| {
            entry
                .as_ref()
                .is_some_and(|entry| *entry.tool == *tool && *entry.args == *args)
        };
        // A poisoned slot (a panic while it was held, which nothing here does) is
        // only not used.
        if let Ok(mut kept) = slot.lock()
            && let Some(way) = kept.iter().position(same)
        {
            kept.swap(0, way);
            if let Some(entry) = &kept[0] {
                return entry.found.clone();
            }
        }
        let found = check();
        if found.len() <= MAX_VIOLATIONS
            && let Ok(mut kept) = slot.lock()
            && !kept.iter().any(same)
        {
            kept.swap(0, 1);
            kept[0] = Some(Entry {
                tool: tool.into(),
                args: args.into(),
                found: found.clone(),
            });
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::{ArgsCache, MAX_ARGS, MAX_TOOL, MAX_VIOLATIONS};
    use crate::finding::ArgumentViolation;

    fn violations(n: usize) -> Vec<ArgumentViolation> {
        (0..n)
            .map(|i| ArgumentViolation::SchemaCannotEvaluate {
                argument: format!("/{i}").into(),
            })
            .collect()
    }

    /// A check is made once for the same tool and arguments, and again for any
    /// other; what the cache gives is what the check gave. The first check of all is
    /// not kept: it only makes the next one make the table.
    #[test]
    fn the_same_call_is_checked_once() {
        let cache = ArgsCache::default();
        let mut made = 0;
        let mut get = |tool: &str, args: &[u8], n: usize| {
            cache.get_or_check(tool, args, || {
                made += 1;
                violations(n)
            })
        };
        assert_eq!(get("first", b"{}", 3), violations(3));
        assert_eq!(get("first", b"{}", 4), violations(4));
        assert_eq!(get("first", b"{}", 5), violations(4));
        assert_eq!(get("t", b"{}", 1), violations(1));
        assert_eq!(get("t", b"{}", 9), violations(1));
        assert_eq!(get("u", b"{}", 2), violations(2));
        assert_eq!(get("t", b"{} ", 0), violations(0));
        assert_eq!(get("t", b"{}", 9), violations(1));
        assert_eq!(made, 5);
    }

    /// Two caches (two policies) never give each other's checks; a check made on
    /// one thread is given on another.
    #[test]
    fn a_check_is_of_its_own_cache_on_any_thread() {
        let (one, two) = (ArgsCache::default(), ArgsCache::default());
        // The first check of each, not kept.
        for cache in [&one, &two] {
            cache.get_or_check("first", b"{}", Vec::new);
        }
        let made = std::sync::atomic::AtomicUsize::new(0);
        let get = |cache: &ArgsCache, n: usize| {
            cache.get_or_check("t", b"{}", || {
                made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                violations(n)
            })
        };
        assert_eq!(get(&one, 1), violations(1));
        assert_eq!(get(&two, 2), violations(2));
        std::thread::scope(|threads| {
            threads.spawn(|| {
                assert_eq!(get(&one, 9), violations(1));
                assert_eq!(get(&two, 9), violations(2));
            });
        });
        assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), 2);
    }

    /// Long arguments, long tool names and checks of many violations are not kept.
    #[test]
    fn only_small_checks_are_kept() {
        let cache = ArgsCache::default();
        // The first check of all, not kept.
        cache.get_or_check("first", b"{}", Vec::new);
        let long = vec![b' '; MAX_ARGS + 1];
        let long_tool = "t".repeat(MAX_TOOL + 1);
        let mut made = 0;
        for (tool, args, n) in [
            ("t", &long[..], 0),
            ("t", &long[..], 0),
            (&long_tool[..], &b"{}"[..], 0),
            (&long_tool[..], &b"{}"[..], 0),
            ("t", &b"{}"[..], MAX_VIOLATIONS + 1),
            ("t", &b"{}"[..], MAX_VIOLATIONS + 1),
        ] {
            let found = cache.get_or_check(tool, args, || {
                made += 1;
                violations(n)
            });
            assert_eq!(found, violations(n));
        }
        assert_eq!(made, 6);
    }
}
