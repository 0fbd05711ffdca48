//! Lambda entry point of the API key authorizer.

use lambda_runtime::{service_fn, LambdaEvent};

// One thread: a container gets one event at a time (docs/performance.md).
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), lambda_runtime::Error> {
    paygate_compose::init_logging()?;
    let deps: fn_authorizer::Deps = paygate_compose::from_env().await?;
    let deps = &deps;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<_>| async move {
        Ok::<_, std::convert::Infallible>(fn_authorizer::handle(deps, event.payload).await)
    }))
    .await
}
