//! Against moto's SQS: queues with DLQs, event bodies, per-message delays.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use paygate_aws::moto::{unique_prefix, MotoServer, REGION};
use paygate_aws::sqs::{create_queues, depth, receive, SqsDeliveryQueue};
use paygate_domain::{
    ports::{DeliveryMessage, DeliveryQueue},
    DeliveryId, Timestamp,
};

#[tokio::test]
async fn delayed_delivery_messages_stay_invisible_until_due() {
    let moto = MotoServer::shared().unwrap();
    let client = paygate_aws::Clients::local(&moto.endpoint, REGION).sqs;
    let q = create_queues(&client, &unique_prefix("sqs")).await.unwrap();
    let queue = SqsDeliveryQueue::new(client.clone(), &q.deliveries);
    let msg = DeliveryMessage {
        delivery_id: DeliveryId::parse("dlv_1").unwrap(),
        attempt: 2,
        due_at: Timestamp::from_unix_millis(1_795_251_600_000),
    };
    queue.enqueue(&msg, 0).await.unwrap();
    queue.enqueue(&msg, 600).await.unwrap();
    let got = receive(&client, &q.deliveries, 10, 1).await.unwrap();
    assert_eq!(got.len(), 1, "the delayed copy is not visible yet");
    let body: DeliveryMessage = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(body, msg);
    assert_eq!(depth(&client, &q.deliveries).await.unwrap(), 2);
    // Delays above SQS's 900 s limit are clamped, not refused.
    queue.enqueue(&msg, 5_000).await.unwrap();
}
