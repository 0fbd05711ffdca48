//! Lambda entry point: build the dependencies once, then serve events with `handle`.

// One thread: a container gets one event at a time (docs/performance.md).
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_http::Error> {
    paygate_compose::init_logging()?;
    let deps: fn_points_inquiry::Deps = paygate_compose::from_env().await?;
    let deps = &deps;
    lambda_http::run(lambda_http::service_fn(move |req| async move {
        Ok::<_, std::convert::Infallible>(fn_points_inquiry::handle(deps, req).await)
    }))
    .await
}
