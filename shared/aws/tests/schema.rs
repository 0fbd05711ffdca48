//! Table creation against moto.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test crate: helpers may panic

use aws_sdk_dynamodb::types::{KeyType, ProjectionType, ScalarAttributeType, TimeToLiveStatus};
use paygate_aws::dynamo::{
    create_tables,
    schema::{DELIVERIES, TABLES},
    table_names,
};
use paygate_aws::moto::{unique_prefix, MotoServer};

#[tokio::test]
async fn create_tables_is_idempotent_and_matches_the_definitions() {
    // GIVEN a fresh prefix on moto
    let client = MotoServer::shared().unwrap().client();
    let prefix = unique_prefix("schema");

    // WHEN the tables are created twice
    create_tables(&client, &prefix).await.unwrap();
    create_tables(&client, &prefix).await.unwrap();

    // THEN every table exists once, with the defined keys, GSIs and billing
    let listed = client.list_tables().send().await.unwrap();
    let ours: Vec<_> = listed
        .table_names()
        .iter()
        .filter(|n| n.starts_with(&prefix))
        .collect();
    assert_eq!(ours.len(), TABLES.len());
    let names = table_names(&prefix);
    assert_eq!(names.payments, format!("{prefix}PaymentsTable"));

    for def in TABLES {
        let t = client
            .describe_table()
            .table_name(def.name(&prefix))
            .send()
            .await
            .unwrap()
            .table
            .unwrap();
        let keys: Vec<_> = t
            .key_schema()
            .iter()
            .map(|k| (k.attribute_name().to_owned(), k.key_type().clone()))
            .collect();
        let mut expected = vec![(def.hash_key.to_owned(), KeyType::Hash)];
        if let Some(r) = def.range_key {
            expected.push((r.to_owned(), KeyType::Range));
        }
        assert_eq!(keys, expected, "{}", def.logical_id);
        for a in t.attribute_definitions() {
            assert_eq!(a.attribute_type(), &ScalarAttributeType::S);
        }
        let gsis = t.global_secondary_indexes();
        assert_eq!(gsis.len(), def.gsis.len(), "{}", def.logical_id);
        for (g, want) in gsis.iter().zip(def.gsis) {
            assert_eq!(g.index_name(), Some(want.name));
            assert_eq!(g.key_schema()[0].attribute_name(), want.hash_key);
            assert_eq!(
                g.key_schema().get(1).map(|k| k.attribute_name()),
                want.range_key
            );
            assert_eq!(
                g.projection().and_then(|p| p.projection_type()),
                Some(&ProjectionType::All)
            );
        }
        let ttl = client
            .describe_time_to_live()
            .table_name(def.name(&prefix))
            .send()
            .await
            .unwrap()
            .time_to_live_description
            .unwrap();
        match def.ttl_attribute {
            Some(attr) => {
                assert_eq!(ttl.attribute_name(), Some(attr), "{}", def.logical_id);
                assert_eq!(
                    ttl.time_to_live_status(),
                    Some(&TimeToLiveStatus::Enabled),
                    "{}",
                    def.logical_id
                );
            }
            None => assert_ne!(
                ttl.time_to_live_status(),
                Some(&TimeToLiveStatus::Enabled),
                "{}",
                def.logical_id
            ),
        }
    }
    assert_eq!(
        DELIVERIES.ttl_attribute,
        Some("expiresAt"),
        "deliveries expire"
    );
}
