//! The admin routes: one table shared by the functions (which route on the HTTP API's route
//! key), the dev server (which mounts them) and the drift tests (which compare them with
//! `template.yaml` and `docs/openapi.yaml`).

use std::collections::HashMap;

/// Which Lambda function serves a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdminFunction {
    /// `admin-endpoints`: endpoint CRUD, secret rotation, test events; API keys.
    Endpoints,
    /// `admin-deliveries`: delivery history, one delivery, resend, an event's deliveries;
    /// an endpoint's recover and health; the daily reconciliation reports; one payment with
    /// its transactions.
    Deliveries,
}

impl AdminFunction {
    /// The function's logical id in `template.yaml`.
    pub const fn logical_id(self) -> &'static str {
        match self {
            Self::Endpoints => "AdminEndpointsFunction",
            Self::Deliveries => "AdminDeliveriesFunction",
        }
    }
}

/// One admin route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdminRoute {
    CreateEndpoint,
    ListEndpoints,
    GetEndpoint,
    UpdateEndpoint,
    DeleteEndpoint,
    RotateSecret,
    SendTestEvent,
    ListEndpointDeliveries,
    GetDelivery,
    ResendDelivery,
    ListEventDeliveries,
    RecoverDeliveries,
    EndpointHealth,
    CreateApiKey,
    ListApiKeys,
    RollApiKey,
    RevokeApiKey,
    ListAudit,
    ListReconciliations,
    GetPayment,
}

/// Every admin route.
pub const ROUTES: [AdminRoute; 20] = [
    AdminRoute::CreateEndpoint,
    AdminRoute::ListEndpoints,
    AdminRoute::GetEndpoint,
    AdminRoute::UpdateEndpoint,
    AdminRoute::DeleteEndpoint,
    AdminRoute::RotateSecret,
    AdminRoute::SendTestEvent,
    AdminRoute::ListEndpointDeliveries,
    AdminRoute::GetDelivery,
    AdminRoute::ResendDelivery,
    AdminRoute::ListEventDeliveries,
    AdminRoute::RecoverDeliveries,
    AdminRoute::EndpointHealth,
    AdminRoute::CreateApiKey,
    AdminRoute::ListApiKeys,
    AdminRoute::RollApiKey,
    AdminRoute::RevokeApiKey,
    AdminRoute::ListAudit,
    AdminRoute::ListReconciliations,
    AdminRoute::GetPayment,
];

const ENDPOINTS: &str = "/admin/v1/merchants/{merchantId}/webhook-endpoints";
const ENDPOINT: &str = "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}";
const API_KEYS: &str = "/admin/v1/merchants/{merchantId}/api-keys";
const API_KEY: &str = "/admin/v1/merchants/{merchantId}/api-keys/{keyId}";

impl AdminRoute {
    pub const fn method(self) -> &'static str {
        match self {
            Self::CreateEndpoint | Self::RotateSecret | Self::SendTestEvent => "POST",
            Self::ResendDelivery | Self::RecoverDeliveries => "POST",
            Self::CreateApiKey | Self::RollApiKey => "POST",
            Self::UpdateEndpoint => "PATCH",
            Self::DeleteEndpoint | Self::RevokeApiKey => "DELETE",
            _ => "GET",
        }
    }

    /// The path template, with `{merchantId}`-style parameters as API Gateway and axum
    /// write them.
    pub const fn path(self) -> &'static str {
        match self {
            Self::CreateEndpoint | Self::ListEndpoints => ENDPOINTS,
            Self::GetEndpoint | Self::UpdateEndpoint | Self::DeleteEndpoint => ENDPOINT,
            Self::RotateSecret => {
                "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/rotate-secret"
            }
            Self::SendTestEvent => {
                "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/test"
            }
            Self::ListEndpointDeliveries => {
                "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/deliveries"
            }
            Self::GetDelivery => "/admin/v1/merchants/{merchantId}/deliveries/{deliveryId}",
            Self::ResendDelivery => {
                "/admin/v1/merchants/{merchantId}/deliveries/{deliveryId}/resend"
            }
            Self::ListEventDeliveries => {
                "/admin/v1/merchants/{merchantId}/events/{eventId}/deliveries"
            }
            Self::RecoverDeliveries => {
                "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/recover"
            }
            Self::EndpointHealth => {
                "/admin/v1/merchants/{merchantId}/webhook-endpoints/{endpointId}/health"
            }
            Self::CreateApiKey | Self::ListApiKeys => API_KEYS,
            Self::RevokeApiKey => API_KEY,
            Self::RollApiKey => "/admin/v1/merchants/{merchantId}/api-keys/{keyId}/roll",
            Self::ListAudit => "/admin/v1/merchants/{merchantId}/audit",
            Self::ListReconciliations => "/admin/v1/merchants/{merchantId}/reconciliations",
            Self::GetPayment => "/admin/v1/merchants/{merchantId}/payments/{paymentId}",
        }
    }

    /// Whether the route changes anything (every method but GET): each such request leaves
    /// one audit record (`crate::admin::audit`).
    pub fn is_write(self) -> bool {
        self.method() != "GET"
    }

    /// The audit record's action name of a write; `None` for a read.
    pub const fn action(self) -> Option<&'static str> {
        Some(match self {
            Self::CreateEndpoint => "webhook_endpoint.create",
            Self::UpdateEndpoint => "webhook_endpoint.update",
            Self::DeleteEndpoint => "webhook_endpoint.delete",
            Self::RotateSecret => "webhook_endpoint.rotate_secret",
            Self::SendTestEvent => "webhook_endpoint.send_test_event",
            Self::RecoverDeliveries => "webhook_endpoint.recover_deliveries",
            Self::ResendDelivery => "delivery.resend",
            Self::CreateApiKey => "api_key.create",
            Self::RollApiKey => "api_key.roll",
            Self::RevokeApiKey => "api_key.revoke",
            Self::ListEndpoints
            | Self::GetEndpoint
            | Self::ListEndpointDeliveries
            | Self::GetDelivery
            | Self::ListEventDeliveries
            | Self::EndpointHealth
            | Self::ListApiKeys
            | Self::ListAudit
            | Self::ListReconciliations
            | Self::GetPayment => return None,
        })
    }

    /// `"METHOD /path"`: the HTTP API route key.
    pub fn key(self) -> String {
        format!("{} {}", self.method(), self.path())
    }

    pub const fn function(self) -> AdminFunction {
        match self {
            Self::ListEndpointDeliveries
            | Self::GetDelivery
            | Self::ResendDelivery
            | Self::ListEventDeliveries
            | Self::RecoverDeliveries
            | Self::EndpointHealth
            | Self::ListReconciliations
            | Self::GetPayment => AdminFunction::Deliveries,
            _ => AdminFunction::Endpoints,
        }
    }

    /// The route a route key names.
    pub fn from_key(key: &str) -> Option<Self> {
        ROUTES.into_iter().find(|r| r.key() == key)
    }

    /// The route a request's method and path fall under, with the path parameters. The
    /// path may carry a stage prefix (`/prod/admin/v1/…`).
    pub fn resolve(method: &str, path: &str) -> Option<(Self, HashMap<String, String>)> {
        let path = match path.find("/admin/v1/") {
            Some(i) => &path[i..],
            None => return None,
        };
        let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        ROUTES.into_iter().find_map(|route| {
            if !route.method().eq_ignore_ascii_case(method) {
                return None;
            }
            let template: Vec<&str> = route.path().split('/').collect();
            if template.len() != segments.len() {
                return None;
            }
            let mut params = HashMap::new();
            for (t, s) in template.iter().zip(&segments) {
                match t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                    Some(name) if !s.is_empty() => {
                        params.insert(name.to_owned(), (*s).to_owned());
                    }
                    Some(_) => return None,
                    None if t == s => {}
                    None => return None,
                }
            }
            Some((route, params))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_round_trip() {
        let keys: std::collections::HashSet<String> = ROUTES.iter().map(|r| r.key()).collect();
        assert_eq!(keys.len(), ROUTES.len());
        for r in ROUTES {
            assert_eq!(AdminRoute::from_key(&r.key()), Some(r));
        }
    }

    #[test]
    fn paths_resolve_to_their_route_and_parameters() {
        let (r, p) = AdminRoute::resolve(
            "POST",
            "/admin/v1/merchants/mch_1/webhook-endpoints/whe_2/rotate-secret",
        )
        .unwrap();
        assert_eq!(r, AdminRoute::RotateSecret);
        assert_eq!(
            AdminRoute::resolve("GET", "/admin/v1/merchants/m/audit").map(|(r, _)| r),
            Some(AdminRoute::ListAudit)
        );
        assert_eq!(p["merchantId"], "mch_1");
        assert_eq!(p["endpointId"], "whe_2");
        let (r, _) =
            AdminRoute::resolve("PATCH", "/prod/admin/v1/merchants/m/webhook-endpoints/e").unwrap();
        assert_eq!(r, AdminRoute::UpdateEndpoint);
        assert_eq!(
            AdminRoute::resolve("GET", "/admin/v1/merchants/m/events/e/deliveries").map(|(r, _)| r),
            Some(AdminRoute::ListEventDeliveries)
        );
        assert!(AdminRoute::resolve("PUT", "/admin/v1/merchants/m/webhook-endpoints").is_none());
        assert!(AdminRoute::resolve("GET", "/v1/payments/pay_1").is_none());
        assert!(AdminRoute::resolve("GET", "/admin/v1/merchants//webhook-endpoints").is_none());
        let (r, p) =
            AdminRoute::resolve("POST", "/admin/v1/merchants/m/api-keys/key_1/roll").unwrap();
        assert_eq!((r, p["keyId"].as_str()), (AdminRoute::RollApiKey, "key_1"));
        assert_eq!(
            AdminRoute::resolve("DELETE", "/admin/v1/merchants/m/api-keys/key_1").map(|(r, _)| r),
            Some(AdminRoute::RevokeApiKey)
        );
        assert_eq!(
            AdminRoute::resolve("POST", "/admin/v1/merchants/m/webhook-endpoints/e/recover")
                .map(|(r, _)| r),
            Some(AdminRoute::RecoverDeliveries)
        );
        assert_eq!(
            AdminRoute::resolve("GET", "/admin/v1/merchants/m/webhook-endpoints/e/health")
                .map(|(r, _)| r),
            Some(AdminRoute::EndpointHealth)
        );
    }

    #[test]
    fn every_write_and_only_a_write_has_an_audit_action() {
        let mut actions = std::collections::HashSet::new();
        for r in ROUTES {
            assert_eq!(r.action().is_some(), r.is_write(), "{}", r.key());
            if let Some(a) = r.action() {
                assert!(actions.insert(a), "{a} named twice");
            }
        }
        assert_eq!(actions.len(), 10);
    }

    #[test]
    fn each_function_serves_its_routes() {
        let deliveries: Vec<AdminRoute> = ROUTES
            .into_iter()
            .filter(|r| r.function() == AdminFunction::Deliveries)
            .collect();
        assert_eq!(deliveries.len(), 8);
        assert!(deliveries.iter().all(|r| r.path().contains("deliveries")
            || r.path().ends_with("/recover")
            || r.path().ends_with("/health")
            || r.path().ends_with("/reconciliations")
            || r.path().ends_with("/payments/{paymentId}")));
        // API keys are served by admin-endpoints.
        assert!(ROUTES
            .into_iter()
            .filter(|r| r.path().contains("api-keys"))
            .all(|r| r.function() == AdminFunction::Endpoints));
    }
}
