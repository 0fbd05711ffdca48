//! Lambda entry point: build the dependencies once, then sweep on every scheduled event.

use lambda_runtime::{service_fn, Error, LambdaEvent};

// One thread: a container gets one event at a time (docs/performance.md).
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    paygate_compose::init_logging()?;
    let deps: fn_outbox_sweeper::Deps = paygate_compose::from_env().await?;
    let deps = &deps;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<_>| async move {
        Ok::<_, Error>(fn_outbox_sweeper::handle(deps, event.payload).await?)
    }))
    .await
}
