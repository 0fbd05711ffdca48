//! The fault layer shared by the bank simulators: deterministic (scripted or seeded), off by
//! default, applied to **money requests only** (capture, cancel/void/reverse, refund; never
//! to status queries or order lookups).
//!
//! ```ignore
//! use paygate_bankkit::sim::{Fault, FaultOdds};
//! let (server, state) = /* a protocol's sim::start(..) */;
//! // The next three money requests: time out after applying, pass, technical error.
//! state.fault_plan().script([Fault::TimeoutAfter, Fault::Pass, Fault::TechnicalError]);
//! // Or: every money request draws a fault from a seeded generator (per-mille odds).
//! state.fault_plan().random(42, FaultOdds { timeout_after: 50, late_booking: 20, ..FaultOdds::default() });
//! let counts = state.fault_plan().counts();      // faults injected, by kind
//! let ledger = state.ledger();                    // what the bank applied, per order
//! ```
//!
//! What each fault does (each protocol answers its own technical error and "no record"):
//!
//! | fault | ledger | client sees |
//! |---|---|---|
//! | [`Fault::TimeoutBefore`] | untouched | no answer: the connection is held for [`FaultPlan::hang`], then dropped (a client with a shorter time-out sees a time-out) |
//! | [`Fault::TimeoutAfter`] | applied | the same, after applying |
//! | [`Fault::DropBefore`] | untouched | the connection breaks at once |
//! | [`Fault::DropAfter`] | applied | the connection breaks at once, after applying |
//! | [`Fault::TechnicalError`] | untouched | the protocol's technical error code |
//! | [`Fault::LateBooking`] | applied | the connection breaks after applying, and the **first status query** for that order afterwards answers "no record"; later ones show it |
//!
//! A script takes precedence over the random draw; an exhausted script falls back to the
//! random draw (if any). Concurrent requests draw in arrival order, so a seeded run is
//! reproducible when its requests are sequential.

use std::{
    collections::{HashSet, VecDeque},
    time::Duration,
};

/// One fault, injected into one money request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// No fault: the request is answered normally (a placeholder in a script).
    Pass,
    /// Time-out before applying: the request never reaches the ledger, no answer comes.
    TimeoutBefore,
    /// Time-out after applying: the ledger is updated, the answer never comes.
    TimeoutAfter,
    /// The connection drops before the request is applied.
    DropBefore,
    /// The connection drops after the request is applied.
    DropAfter,
    /// The protocol's technical error answer; nothing applied.
    TechnicalError,
    /// Applied, the answer lost (dropped connection), and the first status query for the
    /// order afterwards answers "no record".
    LateBooking,
}

impl Fault {
    /// Every real fault (not [`Fault::Pass`]).
    pub const ALL: [Fault; 6] = [
        Fault::TimeoutBefore,
        Fault::TimeoutAfter,
        Fault::DropBefore,
        Fault::DropAfter,
        Fault::TechnicalError,
        Fault::LateBooking,
    ];

    /// Whether the bank applies the request under this fault.
    pub fn applies(self) -> bool {
        matches!(
            self,
            Fault::Pass | Fault::TimeoutAfter | Fault::DropAfter | Fault::LateBooking
        )
    }

    /// A stable snake_case name (for printed figures).
    pub fn name(self) -> &'static str {
        match self {
            Fault::Pass => "pass",
            Fault::TimeoutBefore => "timeout_before",
            Fault::TimeoutAfter => "timeout_after",
            Fault::DropBefore => "drop_before",
            Fault::DropAfter => "drop_after",
            Fault::TechnicalError => "technical_error",
            Fault::LateBooking => "late_booking",
        }
    }
}

/// Odds of each fault per money request, in per mille (their sum should not exceed 1000;
/// whatever is left passes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultOdds {
    pub timeout_before: u32,
    pub timeout_after: u32,
    pub drop_before: u32,
    pub drop_after: u32,
    pub technical_error: u32,
    pub late_booking: u32,
}

impl FaultOdds {
    /// The same odds for every fault.
    pub fn uniform(per_mille_each: u32) -> Self {
        Self {
            timeout_before: per_mille_each,
            timeout_after: per_mille_each,
            drop_before: per_mille_each,
            drop_after: per_mille_each,
            technical_error: per_mille_each,
            late_booking: per_mille_each,
        }
    }

    fn of(&self, f: Fault) -> u32 {
        match f {
            Fault::Pass => 0,
            Fault::TimeoutBefore => self.timeout_before,
            Fault::TimeoutAfter => self.timeout_after,
            Fault::DropBefore => self.drop_before,
            Fault::DropAfter => self.drop_after,
            Fault::TechnicalError => self.technical_error,
            Fault::LateBooking => self.late_booking,
        }
    }
}

/// What the plan has done so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// Money requests seen (faulted or not).
    pub money_requests: u64,
    pub timeout_before: u64,
    pub timeout_after: u64,
    pub drop_before: u64,
    pub drop_after: u64,
    pub technical_error: u64,
    pub late_booking: u64,
    /// Status queries answered "no record" because of a late booking.
    pub hidden_answers: u64,
}

impl FaultCounts {
    /// Faults of one kind injected.
    pub fn of(&self, f: Fault) -> u64 {
        self.clone().slot(f).map_or(0, |n| *n)
    }

    /// Every fault injected.
    pub fn total(&self) -> u64 {
        Fault::ALL.iter().map(|f| self.of(*f)).sum()
    }

    fn bump(&mut self, f: Fault) {
        if let Some(n) = self.slot(f) {
            *n += 1;
        }
    }

    /// The counter of a fault (none for a pass).
    fn slot(&mut self, f: Fault) -> Option<&mut u64> {
        Some(match f {
            Fault::Pass => return None,
            Fault::TimeoutBefore => &mut self.timeout_before,
            Fault::TimeoutAfter => &mut self.timeout_after,
            Fault::DropBefore => &mut self.drop_before,
            Fault::DropAfter => &mut self.drop_after,
            Fault::TechnicalError => &mut self.technical_error,
            Fault::LateBooking => &mut self.late_booking,
        })
    }
}

/// SplitMix64: small, seedable, good enough to spread faults.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The default time a time-out fault holds the connection: longer than the adapters' 8 s
/// per-call bound. Tests give their transport a short time-out (or shorten this).
pub const DEFAULT_HANG: Duration = Duration::from_secs(10);

/// A simulator's fault plan (see the module doc). Off by default.
#[derive(Debug)]
pub struct FaultPlan {
    script: VecDeque<Fault>,
    random: Option<(Rng, FaultOdds)>,
    hang: Duration,
    /// (client, order) whose next status query answers "no record".
    hidden: HashSet<(String, String)>,
    counts: FaultCounts,
}

impl Default for FaultPlan {
    fn default() -> Self {
        Self {
            script: VecDeque::new(),
            random: None,
            hang: DEFAULT_HANG,
            hidden: HashSet::new(),
            counts: FaultCounts::default(),
        }
    }
}

impl FaultPlan {
    /// The next money requests get these faults, in order (appended to any script left).
    pub fn script(&mut self, faults: impl IntoIterator<Item = Fault>) -> &mut Self {
        self.script.extend(faults);
        self
    }

    /// Every money request (once the script is used up) draws a fault with these odds from
    /// a generator seeded with `seed`.
    pub fn random(&mut self, seed: u64, odds: FaultOdds) -> &mut Self {
        self.random = Some((Rng(seed), odds));
        self
    }

    /// How long a time-out fault holds the connection before dropping it.
    pub fn set_hang(&mut self, hang: Duration) -> &mut Self {
        self.hang = hang;
        self
    }

    pub fn hang(&self) -> Duration {
        self.hang
    }

    /// Back to no faults (counters and pending late bookings are kept).
    pub fn off(&mut self) -> &mut Self {
        self.script.clear();
        self.random = None;
        self
    }

    /// Whether any fault can still be injected.
    pub fn is_active(&self) -> bool {
        !self.script.is_empty() || self.random.is_some()
    }

    pub fn counts(&self) -> FaultCounts {
        self.counts.clone()
    }

    /// The fault for the next money request (counted).
    pub fn draw(&mut self) -> Fault {
        self.counts.money_requests += 1;
        let fault = match self.script.pop_front() {
            Some(f) => f,
            None => match &mut self.random {
                None => Fault::Pass,
                Some((rng, odds)) => {
                    let roll = (rng.next() % 1000) as u32;
                    let mut acc = 0u32;
                    Fault::ALL
                        .into_iter()
                        .find(|f| {
                            acc = acc.saturating_add(odds.of(*f));
                            roll < acc
                        })
                        .unwrap_or(Fault::Pass)
                }
            },
        };
        self.counts.bump(fault);
        fault
    }

    /// Makes the next status query for (client, order) answer "no record".
    pub fn hide_once(&mut self, client: &str, order: &str) {
        self.hidden.insert((client.to_owned(), order.to_owned()));
    }

    /// Whether this status query must answer "no record" (a late booking); consumes it.
    pub fn take_hidden(&mut self, client: &str, order: &str) -> bool {
        let hit = self.hidden.remove(&(client.to_owned(), order.to_owned()));
        if hit {
            self.counts.hidden_answers += 1;
        }
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_by_default_then_scripted_then_random() {
        let mut p = FaultPlan::default();
        assert!(!p.is_active());
        assert_eq!(p.draw(), Fault::Pass);
        p.script([Fault::TimeoutAfter, Fault::Pass, Fault::TechnicalError]);
        assert_eq!(
            [p.draw(), p.draw(), p.draw(), p.draw()],
            [
                Fault::TimeoutAfter,
                Fault::Pass,
                Fault::TechnicalError,
                Fault::Pass
            ]
        );
        let c = p.counts();
        assert_eq!((c.money_requests, c.total()), (5, 2));
        assert_eq!(
            (c.of(Fault::TimeoutAfter), c.of(Fault::TechnicalError)),
            (1, 1)
        );
    }

    #[test]
    fn a_seed_gives_the_same_faults() {
        let run = |seed| {
            let mut p = FaultPlan::default();
            p.random(seed, FaultOdds::uniform(100));
            (0..200).map(|_| p.draw()).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let faults = run(7);
        let injected = faults.iter().filter(|f| **f != Fault::Pass).count();
        // 600 ‰ odds: roughly 120 of 200.
        assert!((80..160).contains(&injected), "{injected}");
        for f in Fault::ALL {
            assert!(faults.contains(&f), "{f:?} never drawn");
        }
        let mut never = FaultPlan::default();
        never.random(1, FaultOdds::default());
        assert!((0..100).all(|_| never.draw() == Fault::Pass));
    }

    #[test]
    fn a_late_booking_hides_the_order_once() {
        let mut p = FaultPlan::default();
        p.hide_once("c", "o");
        assert!(!p.take_hidden("c", "other"));
        assert!(p.take_hidden("c", "o"));
        assert!(!p.take_hidden("c", "o"));
        assert_eq!(p.counts().hidden_answers, 1);
        assert!(Fault::LateBooking.applies() && !Fault::TimeoutBefore.applies());
    }
}
