//! `GET /admin/v1/merchants/{merchantId}/reconciliations?date=YYYY-MM-DD[&format=csv]`: the
//! daily reconciliation reports of one business day (`paygate_domain::daily`), every POS
//! account of the merchant, as JSON or as CSV for a spreadsheet.

use lambda_http::{http::StatusCode, Body, Response};
use paygate_domain::daily::{to_csv, BusinessDay, DayReport};
use serde::Serialize;

use crate::{
    admin::{deliveries::DeliveriesDeps, merchant, store_error},
    ApiError,
};

/// The JSON answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationList {
    pub date: BusinessDay,
    /// One per account reconciled for the day (none yet: the night's run has not reached
    /// the day, or the merchant has no account), by account id.
    pub data: Vec<DayReport>,
}

/// What the query asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportQuery {
    pub date: BusinessDay,
    pub csv: bool,
}

impl ReportQuery {
    /// `date` (required) and `format` (`json`, the default, or `csv`); anything else is
    /// refused by name.
    pub fn from_query(query: Option<&str>) -> Result<Self, ApiError> {
        let mut date = None;
        let mut csv = false;
        for (k, v) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            match k.as_ref() {
                "date" => {
                    date =
                        Some(BusinessDay::parse(&v).ok_or_else(|| {
                            ApiError::invalid("date", "must be a date (YYYY-MM-DD)")
                        })?);
                }
                "format" => {
                    csv = match v.as_ref() {
                        "json" => false,
                        "csv" => true,
                        _ => return Err(ApiError::invalid("format", "must be json or csv")),
                    }
                }
                other => {
                    let field = if other.len() <= 40 { other } else { "query" };
                    return Err(ApiError::invalid(field, "is not a known query parameter"));
                }
            }
        }
        let date = date.ok_or_else(|| ApiError::invalid("date", "is required (YYYY-MM-DD)"))?;
        Ok(Self { date, csv })
    }
}

/// The reports of the day, as JSON or CSV.
pub async fn list(
    deps: &DeliveriesDeps,
    merchant_raw: &str,
    query: Option<&str>,
) -> Response<Body> {
    let result = async {
        let q = ReportQuery::from_query(query)?;
        let merchant_id = merchant(deps.merchants.as_ref(), merchant_raw).await?;
        let mut data = deps
            .reports
            .list_reports(&merchant_id, q.date)
            .await
            .map_err(store_error)?;
        data.sort_by(|a, b| a.account_id.cmp(&b.account_id));
        Ok::<_, ApiError>((q, data))
    }
    .await;
    match result {
        Ok((q, data)) if q.csv => csv_response(q.date, &data),
        Ok((q, data)) => {
            crate::respond::json(StatusCode::OK, &ReconciliationList { date: q.date, data })
        }
        Err(e) => e.into_response(),
    }
}

fn csv_response(date: BusinessDay, reports: &[DayReport]) -> Response<Body> {
    use lambda_http::http::HeaderValue;
    let mut resp = Response::new(Body::Text(to_csv(reports)));
    let h = resp.headers_mut();
    h.insert(
        "content-type",
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    h.insert(
        "cache-control",
        HeaderValue::from_static(crate::respond::CACHE_CONTROL),
    );
    if let Ok(v) = HeaderValue::from_str(&format!(
        "attachment; filename=\"reconciliation-{date}.csv\""
    )) {
        h.insert("content-disposition", v);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_needs_a_date_and_knows_its_formats() {
        let q = ReportQuery::from_query(Some("date=2026-11-26&format=csv")).unwrap();
        assert_eq!((q.date.to_string().as_str(), q.csv), ("2026-11-26", true));
        assert!(
            !ReportQuery::from_query(Some("date=2026-11-26"))
                .unwrap()
                .csv
        );
        for bad in [
            None,
            Some("date=26.11.2026"),
            Some("date=2026-11-26&format=xml"),
            Some("date=2026-11-26&limit=3"),
        ] {
            assert!(ReportQuery::from_query(bad).is_err(), "{bad:?}");
        }
    }
}
