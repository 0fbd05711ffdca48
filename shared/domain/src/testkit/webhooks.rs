//! Webhook doubles: the event publisher, endpoints, deliveries (with their admin queries),
//! the delivery queue, signing secrets and the HTTP sender.

use std::{
    collections::{BTreeMap, HashMap, VecDeque},
    sync::{
        atomic::{AtomicBool, Ordering},
        Mutex,
    },
};

use crate::{
    ports::{
        DeliveryAdmin, DeliveryMessage, DeliveryQuery, DeliveryQueue, DeliveryStore, EndpointAdmin,
        EndpointHealthStore, EndpointReader, EventPublisher, Listing, Page, SendOutcome,
        SigningSecrets, WebhookSender,
    },
    webhook::{Attempt, Delivery, DeliveryStatus, DisabledReason, EndpointHealth, WebhookEndpoint},
    DeliveryId, EventId, EventRecord, MerchantId, StoreError, TimeRange, Timestamp,
    WebhookEndpointId,
};
use async_trait::async_trait;

/// Records published events; can be told to fail.
#[derive(Default)]
pub struct MemoryPublisher {
    pub published: Mutex<Vec<EventRecord>>,
    failing: AtomicBool,
}

impl MemoryPublisher {
    pub fn set_failing(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    pub fn ids(&self) -> Vec<EventId> {
        self.published
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.id.clone())
            .collect()
    }
}

#[async_trait]
impl EventPublisher for MemoryPublisher {
    async fn publish(&self, event: &EventRecord) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("injected publish failure".into()));
        }
        self.published.lock().unwrap().push(event.clone());
        Ok(())
    }
}

/// Webhook endpoints.
#[derive(Default)]
pub struct MemoryEndpoints(
    pub Mutex<Vec<WebhookEndpoint>>,
    /// Health by endpoint id (absent: never written, the default).
    pub Mutex<HashMap<WebhookEndpointId, EndpointHealth>>,
    /// Health writes still to fail with a condition failure (`false`), as a lost race would.
    pub Mutex<u32>,
);

impl MemoryEndpoints {
    pub fn insert(&self, e: WebhookEndpoint) {
        self.0.lock().unwrap().push(e);
    }

    /// The stored health of an endpoint (the default when never written).
    pub fn health(&self, id: &WebhookEndpointId) -> EndpointHealth {
        self.1.lock().unwrap().get(id).cloned().unwrap_or_default()
    }

    /// The next `n` health writes lose a race (nothing written, `Ok(false)`).
    pub fn lose_health_races(&self, n: u32) {
        *self.2.lock().unwrap() = n;
    }
}

#[async_trait]
impl EndpointHealthStore for MemoryEndpoints {
    async fn get_health(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<(WebhookEndpoint, EndpointHealth)>, StoreError> {
        let e = self.get_endpoint(merchant, id).await?;
        Ok(e.map(|e| (e, self.health(id))))
    }

    async fn list_health(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<(WebhookEndpoint, EndpointHealth)>, StoreError> {
        let mut v = self.list_endpoints(merchant).await?;
        v.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(v.into_iter()
            .map(|e| {
                let h = self.health(&e.id);
                (e, h)
            })
            .collect())
    }

    async fn put_health(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
        health: &EndpointHealth,
        disable_at: Option<Timestamp>,
    ) -> Result<bool, StoreError> {
        {
            let mut lose = self.2.lock().unwrap();
            if *lose > 0 {
                *lose -= 1;
                return Ok(false);
            }
        }
        let mut endpoints = self.0.lock().unwrap();
        let Some(e) = endpoints
            .iter_mut()
            .find(|e| &e.merchant_id == merchant && &e.id == id)
        else {
            return Ok(false);
        };
        let mut healths = self.1.lock().unwrap();
        let current = healths.get(id).map_or(0, |h| h.version);
        if current + 1 != health.version {
            return Ok(false);
        }
        if let Some(at) = disable_at {
            if !e.enabled {
                return Ok(false);
            }
            e.enabled = false;
            e.disabled_reason = Some(DisabledReason::Failing);
            e.updated_at = at;
        }
        healths.insert(id.clone(), health.clone());
        Ok(true)
    }
}

#[async_trait]
impl EndpointReader for MemoryEndpoints {
    async fn list_endpoints(
        &self,
        merchant: &MerchantId,
    ) -> Result<Vec<WebhookEndpoint>, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| &e.merchant_id == merchant)
            .cloned()
            .collect())
    }

    async fn get_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, StoreError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .iter()
            .find(|e| &e.merchant_id == merchant && &e.id == id)
            .cloned())
    }
}

#[async_trait]
impl EndpointAdmin for MemoryEndpoints {
    async fn create_endpoint(&self, endpoint: &WebhookEndpoint) -> Result<(), StoreError> {
        let mut v = self.0.lock().unwrap();
        if v.iter()
            .any(|e| e.merchant_id == endpoint.merchant_id && e.id == endpoint.id)
        {
            return Err(StoreError::AlreadyExists);
        }
        v.push(endpoint.clone());
        Ok(())
    }

    async fn update_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        expected_updated_at: Timestamp,
    ) -> Result<(), StoreError> {
        let mut v = self.0.lock().unwrap();
        match v.iter_mut().find(|e| {
            e.merchant_id == endpoint.merchant_id
                && e.id == endpoint.id
                && e.updated_at == expected_updated_at
        }) {
            Some(e) => {
                *e = endpoint.clone();
                Ok(())
            }
            None => Err(StoreError::Conflict { current: None }),
        }
    }

    async fn delete_endpoint(
        &self,
        merchant: &MerchantId,
        id: &WebhookEndpointId,
    ) -> Result<bool, StoreError> {
        let mut v = self.0.lock().unwrap();
        let before = v.len();
        v.retain(|e| !(&e.merchant_id == merchant && &e.id == id));
        Ok(v.len() != before)
    }
}

/// Deliveries, attempts and leases with the adapter's conditions.
#[derive(Default)]
pub struct MemoryDeliveries {
    inner: Mutex<DeliveryState>,
}

#[derive(Default)]
struct DeliveryState {
    deliveries: HashMap<DeliveryId, (Delivery, Option<Timestamp>)>,
    attempts: BTreeMap<(DeliveryId, u32), Attempt>,
    lost_resets: u32,
}

impl MemoryDeliveries {
    pub fn all(&self) -> Vec<Delivery> {
        self.inner
            .lock()
            .unwrap()
            .deliveries
            .values()
            .map(|(d, _)| d.clone())
            .collect()
    }

    pub fn attempts(&self) -> Vec<Attempt> {
        self.inner
            .lock()
            .unwrap()
            .attempts
            .values()
            .cloned()
            .collect()
    }
}

#[async_trait]
impl DeliveryStore for MemoryDeliveries {
    async fn create_delivery(&self, delivery: &Delivery) -> Result<bool, StoreError> {
        let mut s = self.inner.lock().unwrap();
        if s.deliveries.contains_key(&delivery.id) {
            return Ok(false);
        }
        s.deliveries
            .insert(delivery.id.clone(), (delivery.clone(), None));
        Ok(true)
    }

    async fn get_delivery(&self, id: &DeliveryId) -> Result<Option<Delivery>, StoreError> {
        Ok(self
            .inner
            .lock()
            .unwrap()
            .deliveries
            .get(id)
            .map(|(d, _)| d.clone()))
    }

    async fn claim_attempt(
        &self,
        id: &DeliveryId,
        number: u32,
        lease: TimeRange,
    ) -> Result<bool, StoreError> {
        let mut s = self.inner.lock().unwrap();
        let Some((d, held)) = s.deliveries.get_mut(id) else {
            return Ok(false);
        };
        let free = held.is_none_or(|l| l < lease.since);
        if d.status != DeliveryStatus::Pending || d.attempts_made + 1 != number || !free {
            return Ok(false);
        }
        *held = Some(lease.until);
        Ok(true)
    }

    async fn record_attempt(
        &self,
        attempt: &Attempt,
        after: &Delivery,
    ) -> Result<bool, StoreError> {
        let mut s = self.inner.lock().unwrap();
        let key = (attempt.delivery_id.clone(), attempt.number);
        let ok = s
            .deliveries
            .get(&attempt.delivery_id)
            .is_some_and(|(d, _)| d.attempts_made + 1 == attempt.number)
            && !s.attempts.contains_key(&key);
        if !ok {
            return Ok(false);
        }
        s.attempts.insert(key, attempt.clone());
        s.deliveries.insert(after.id.clone(), (after.clone(), None));
        Ok(true)
    }

    async fn list_attempts(&self, id: &DeliveryId) -> Result<Vec<Attempt>, StoreError> {
        Ok(self
            .inner
            .lock()
            .unwrap()
            .attempts
            .iter()
            .filter(|((d, _), _)| d == id)
            .map(|(_, a)| a.clone())
            .collect())
    }

    async fn list_overdue(
        &self,
        before: Timestamp,
        limit: usize,
    ) -> Result<Listing<Delivery>, StoreError> {
        Ok(Listing::of(
            self.inner
                .lock()
                .unwrap()
                .deliveries
                .values()
                .map(|(d, _)| d)
                .filter(|d| {
                    d.status == DeliveryStatus::Pending
                        && d.next_attempt_at.is_some_and(|t| t <= before)
                })
                .take(limit)
                .cloned()
                .collect(),
        ))
    }
}

/// Cursors are `<endpoint id>:<offset>`; anything else is refused like the adapter does.
#[async_trait]
impl DeliveryAdmin for MemoryDeliveries {
    async fn list_by_endpoint(
        &self,
        endpoint: &WebhookEndpointId,
        query: DeliveryQuery,
    ) -> Result<Page<Delivery>, StoreError> {
        let offset = match &query.cursor {
            None => 0,
            Some(c) => c
                .strip_prefix(&format!("{endpoint}:"))
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| StoreError::Corrupt("invalid cursor".into()))?,
        };
        let mut all: Vec<Delivery> = self
            .all()
            .into_iter()
            .filter(|d| &d.endpoint_id == endpoint && query.status.is_none_or(|s| d.status == s))
            .collect();
        all.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        let items: Vec<Delivery> = all.iter().skip(offset).take(query.limit).cloned().collect();
        let end = offset + items.len();
        let next_cursor = (end < all.len()).then(|| format!("{endpoint}:{end}"));
        Ok(Page { items, next_cursor })
    }

    async fn list_by_event(&self, event: &EventId) -> Result<Vec<Delivery>, StoreError> {
        let mut v: Vec<Delivery> = self
            .all()
            .into_iter()
            .filter(|d| &d.event_id == event)
            .collect();
        v.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(v)
    }

    async fn reset_for_resend(
        &self,
        id: &DeliveryId,
        now: Timestamp,
    ) -> Result<Option<Delivery>, StoreError> {
        let mut s = self.inner.lock().unwrap();
        let Some((d, lease)) = s.deliveries.get_mut(id) else {
            return Ok(None);
        };
        let Some(r) = d.resent(now) else {
            return Err(StoreError::Conflict { current: None });
        };
        *d = r.clone();
        *lease = None;
        if s.lost_resets > 0 {
            // The write happened; its answer is lost.
            s.lost_resets -= 1;
            return Err(StoreError::Unavailable("injected lost answer".into()));
        }
        Ok(Some(r))
    }

    async fn list_failed(
        &self,
        endpoint: &WebhookEndpointId,
        range: TimeRange,
        limit: usize,
    ) -> Result<(Vec<Delivery>, bool), StoreError> {
        let mut v: Vec<Delivery> = self
            .all()
            .into_iter()
            .filter(|d| {
                &d.endpoint_id == endpoint
                    && d.status == DeliveryStatus::Failed
                    && range.contains(d.created_at)
            })
            .collect();
        v.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        let more = v.len() > limit;
        v.truncate(limit);
        Ok((v, more))
    }

    async fn count_pending(&self, endpoint: &WebhookEndpointId) -> Result<u64, StoreError> {
        Ok(self
            .all()
            .iter()
            .filter(|d| &d.endpoint_id == endpoint && d.status == DeliveryStatus::Pending)
            .count() as u64)
    }
}

impl MemoryDeliveries {
    /// The next `n` resets are written but answer an error (a lost answer).
    pub fn lose_reset_answers(&self, n: u32) {
        self.inner.lock().unwrap().lost_resets = n;
    }
}

/// A queue that records what was enqueued, with its delay.
#[derive(Default)]
pub struct MemoryQueue(pub Mutex<Vec<(DeliveryMessage, i64)>>);

impl MemoryQueue {
    /// Takes everything enqueued so far.
    pub fn drain(&self) -> Vec<(DeliveryMessage, i64)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[async_trait]
impl DeliveryQueue for MemoryQueue {
    async fn enqueue(&self, msg: &DeliveryMessage, delay_secs: i64) -> Result<(), StoreError> {
        self.0.lock().unwrap().push((msg.clone(), delay_secs));
        Ok(())
    }
}

/// Fixed signing secrets per secret id.
#[derive(Default)]
pub struct StaticSecrets(pub Mutex<HashMap<String, Vec<String>>>);

impl StaticSecrets {
    pub fn set(&self, id: &str, secrets: &[&str]) {
        self.0.lock().unwrap().insert(
            id.to_owned(),
            secrets.iter().map(|s| (*s).to_owned()).collect(),
        );
    }
}

#[async_trait]
impl SigningSecrets for StaticSecrets {
    async fn signing_secrets(
        &self,
        id: &str,
        _version: u64,
        _now: Timestamp,
    ) -> Result<Vec<String>, StoreError> {
        self.0
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .ok_or_else(|| StoreError::Unavailable("no such secret".into()))
    }
}

/// One request a [`ScriptedSender`] saw: URL, headers, body.
pub type SentRequest = (String, Vec<(String, String)>, Vec<u8>);

/// A sender that answers from a script (default 200) and records every request.
#[derive(Default)]
pub struct ScriptedSender {
    pub script: Mutex<VecDeque<SendOutcome>>,
    pub requests: Mutex<Vec<SentRequest>>,
}

impl ScriptedSender {
    pub fn push_status(&self, code: u16) {
        self.script.lock().unwrap().push_back(SendOutcome {
            status_code: Some(code),
            error: None,
            response_body: format!("status {code}"),
            duration_ms: 3,
        });
    }
}

#[async_trait]
impl WebhookSender for ScriptedSender {
    async fn send(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> SendOutcome {
        self.requests
            .lock()
            .unwrap()
            .push((url.to_owned(), headers.to_vec(), body));
        self.script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(SendOutcome {
                status_code: Some(200),
                error: None,
                response_body: "ok".into(),
                duration_ms: 1,
            })
    }
}
