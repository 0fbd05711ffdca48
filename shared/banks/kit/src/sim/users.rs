//! Who a simulated bank knows and what it keeps beside its book, written once: a user's
//! secret that never shows ([`Secret`]), the users ([`SimUser`]) a simulator's state holds
//! ([`Sim`], which is its router state: [`Host`] and [`Clients`] come with it), and notes
//! kept per order beside the book ([`OrderNotes`]).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use axum::Router;

use super::{admin_routes, Clients, Host, SimState};

/// A password or key the simulated bank checks: `Debug` shows `***`, never the value.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Whether `given` is this secret.
    pub fn matches(&self, given: &str) -> bool {
        self.0 == given
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// A user the simulated bank knows (Nestpay client, PayFor merchant, InterVPOS shop, …).
pub trait SimUser: Send + Sync + 'static {
    /// The JSON field of `POST /_sim/orders` naming the user (see [`Clients`]).
    const CLIENT_FIELD: &'static str;
    /// The text of the `409` answering a duplicate order id.
    const DUPLICATE: &'static str = "duplicate order id";

    /// The key the bank books the user's orders under.
    fn client(&self) -> &str;
}

/// A simulator's router state: the kit's [`SimState`], the users it accepts and `X`, what
/// only this protocol's simulator keeps (a counter, notes beside the book).
pub struct Sim<U, X = ()> {
    pub state: Arc<SimState>,
    pub users: Vec<U>,
    pub extra: X,
}

impl<U: SimUser, X: Send + Sync + 'static> Sim<U, X> {
    /// The simulator's `api` routes over `state` with the admin routes under every prefix
    /// (`""` for the root; see [`admin_routes`]).
    pub fn routes(
        state: Arc<SimState>,
        users: Vec<U>,
        extra: X,
        api: Router<Arc<Self>>,
        prefixes: &[&str],
    ) -> Router {
        let sim = Arc::new(Self {
            state,
            users,
            extra,
        });
        admin_routes(api, prefixes).with_state(sim)
    }

    /// The first user `accepts` (e.g. whose credentials match a request's).
    pub fn user(&self, accepts: impl Fn(&U) -> bool) -> Option<&U> {
        self.users.iter().find(|u| accepts(u))
    }
}

impl<U: SimUser, X: Send + Sync + 'static> Host for Sim<U, X> {
    fn sim_state(&self) -> &SimState {
        &self.state
    }
}

impl<U: SimUser, X: Send + Sync + 'static> Clients for Sim<U, X> {
    const CLIENT_FIELD: &'static str = U::CLIENT_FIELD;
    const DUPLICATE: &'static str = U::DUPLICATE;

    fn knows(&self, client: &str) -> bool {
        self.users.iter().any(|u| u.client() == client)
    }
}

/// Notes a simulator keeps per order beside the book (e.g. refused refunds its history
/// lists), keyed like the book by (client, order id).
pub struct OrderNotes<T>(Mutex<HashMap<(String, String), Vec<T>>>);

impl<T> Default for OrderNotes<T> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

impl<T: Clone> OrderNotes<T> {
    /// Adds a note to the order.
    pub fn add(&self, client: &str, order: &str, note: T) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry((client.to_owned(), order.to_owned()))
            .or_default()
            .push(note);
    }

    /// The order's notes, oldest first.
    pub fn of(&self, client: &str, order: &str) -> Vec<T> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(client.to_owned(), order.to_owned()))
            .cloned()
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_shows_and_matches_only_itself() {
        let s = Secret::from("ISBANK07");
        assert_eq!(format!("{s:?}"), "***");
        assert!(s.matches("ISBANK07") && !s.matches("ISBANK0") && !s.matches(""));
    }

    #[test]
    fn notes_are_kept_per_client_and_order() {
        let notes = OrderNotes::default();
        notes.add("c1", "o1", 1);
        notes.add("c1", "o1", 2);
        notes.add("c2", "o1", 3);
        assert_eq!(notes.of("c1", "o1"), vec![1, 2]);
        assert_eq!(notes.of("c2", "o1"), vec![3]);
        assert!(notes.of("c1", "o2").is_empty());
    }
}
