//! Lambda entry point of CodeDeploy's pre-traffic hook: one smoke test and one report per
//! lifecycle event.

use lambda_runtime::{service_fn, Error, LambdaEvent};

// One thread: a container gets one event at a time (docs/performance.md).
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    paygate_compose::init_logging()?;
    let deps: fn_deploy_hook::Deps = paygate_compose::from_env().await?;
    let deps = &deps;
    lambda_runtime::run(service_fn(
        move |event: LambdaEvent<fn_deploy_hook::HookEvent>| async move {
            Ok::<_, Error>(fn_deploy_hook::run(deps, &event.payload).await?)
        },
    ))
    .await
}
