//! Lambda entry point: build the dependencies once, then reconcile on every scheduled event
//! (the minute's settling run, or the daily reconciliation).

use lambda_runtime::{service_fn, Error, LambdaEvent};

// One thread: a container gets one event at a time (docs/performance.md).
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    paygate_compose::init_logging()?;
    let deps: fn_reconciler::Deps = paygate_compose::from_env().await?;
    let deps = &deps;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<_>| async move {
        let now_ms = deps.reconciler.ops.clock.now().unix_millis();
        let deadline =
            paygate_payments::Deadline::from_epoch_millis(event.context.deadline, now_ms);
        Ok::<_, Error>(fn_reconciler::handle_event(deps, event.payload, Some(deadline)).await?)
    }))
    .await
}
