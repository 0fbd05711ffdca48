//! `template.yaml`'s static egress mode (issue 21, item 8): with `EgressMode=static-ips`
//! every function that calls a bank, and the webhook deliverer, runs in two private subnets
//! whose only way out is a NAT gateway with an Elastic IP in the same AZ; the default mode
//! has no VPC and no network-interface rights. The modes as deployed (after the SAM
//! transform, conditions decided) are checked by `template_rehearsal.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeSet;

use serde_norway::Value;
use support::{intrinsic, resources_of_type, s, template};

const CONDITION: &str = "StaticEgress";

/// `!Ref X`.
fn r(x: &str) -> Value {
    serde_norway::from_str(&format!("!Ref {x}")).unwrap()
}

/// The functions that reach a bank: those given the bank credentials' secret prefix.
fn bank_callers(t: &Value) -> BTreeSet<String> {
    resources_of_type(t, "AWS::Serverless::Function")
        .into_iter()
        .filter(|(_, f)| {
            !f["Properties"]["Environment"]["Variables"]["BANK_SECRET_PREFIX"].is_null()
        })
        .map(|(id, _)| id)
        .collect()
}

/// `[condition, then, else]` of an `!If`.
fn if_branches(v: &Value) -> Option<(String, Value, Value)> {
    match v {
        Value::Tagged(t) if t.tag == "If" => {
            let seq = t.value.as_sequence()?;
            Some((s(&seq[0]), seq[1].clone(), seq[2].clone()))
        }
        _ => None,
    }
}

#[test]
fn the_mode_is_a_parameter_and_defaults_to_no_vpc() {
    let t = template();
    let p = &t["Parameters"]["EgressMode"];
    assert_eq!(s(&p["Default"]), "default");
    let allowed: Vec<String> = p["AllowedValues"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(s)
        .collect();
    assert_eq!(allowed, ["default", "static-ips"]);
    let cond: Value = serde_norway::from_str("!Equals [!Ref EgressMode, static-ips]").unwrap();
    assert_eq!(t["Conditions"][CONDITION], cond);
}

#[test]
fn bank_callers_and_the_deliverer_and_only_they_join_the_private_subnets_in_static_mode() {
    let t = template();
    let banks = bank_callers(&t);
    assert_eq!(
        banks,
        [
            "CancelPaymentFunction",
            "CapturePaymentFunction",
            "PointsInquiryFunction",
            "QueryPaymentFunction",
            "ReconcilerFunction",
            "RefundPaymentFunction",
            "TestCreatePaymentFunction",
        ]
        .map(str::to_owned)
        .into(),
        "the functions with BANK_SECRET_PREFIX"
    );
    let mut in_vpc = BTreeSet::new();
    for (id, f) in resources_of_type(&t, "AWS::Serverless::Function") {
        let vpc = &f["Properties"]["VpcConfig"];
        if vpc.is_null() {
            continue;
        }
        let (cond, then, otherwise) =
            if_branches(vpc).unwrap_or_else(|| panic!("{id}: VpcConfig is not an !If"));
        assert_eq!(cond, CONDITION, "{id}");
        assert_eq!(otherwise, r("AWS::NoValue"), "{id}: no VPC by default");
        assert_eq!(
            then["SubnetIds"].as_sequence().unwrap().as_slice(),
            [r("EgressPrivateSubnetA"), r("EgressPrivateSubnetB")],
            "{id}: both private subnets, one per AZ"
        );
        let group = if id == "WebhookDeliverFunction" {
            "WebhookEgressSecurityGroup"
        } else {
            "BankEgressSecurityGroup"
        };
        assert_eq!(
            then["SecurityGroupIds"].as_sequence().unwrap().as_slice(),
            [r(group)],
            "{id}"
        );
        // SAM attaches AWSLambdaVPCAccessExecutionRole for any VpcConfig: outside the mode
        // a Deny takes the network-interface rights back.
        let deny = f["Properties"]["Policies"]
            .as_sequence()
            .unwrap()
            .iter()
            .find_map(if_branches)
            .unwrap_or_else(|| panic!("{id}: no conditional policy"));
        assert_eq!(deny.0, CONDITION, "{id}");
        assert_eq!(
            deny.1,
            r("AWS::NoValue"),
            "{id}: in static-ips mode, no Deny"
        );
        let st = &deny.2["Statement"][0];
        assert_eq!(s(&st["Effect"]), "Deny", "{id}");
        let actions: Vec<String> = st["Action"].as_sequence().unwrap().iter().map(s).collect();
        assert!(
            actions.contains(&"ec2:CreateNetworkInterface".to_owned()),
            "{id}: {actions:?}"
        );
        in_vpc.insert(id);
    }
    let mut expected = banks;
    expected.insert("WebhookDeliverFunction".to_owned());
    assert_eq!(in_vpc, expected);
}

#[test]
fn every_network_resource_exists_only_in_static_mode() {
    let t = template();
    let network_types = [
        "AWS::EC2::VPC",
        "AWS::EC2::InternetGateway",
        "AWS::EC2::VPCGatewayAttachment",
        "AWS::EC2::Subnet",
        "AWS::EC2::RouteTable",
        "AWS::EC2::Route",
        "AWS::EC2::SubnetRouteTableAssociation",
        "AWS::EC2::EIP",
        "AWS::EC2::NatGateway",
        "AWS::EC2::VPCEndpoint",
        "AWS::EC2::SecurityGroup",
    ];
    let mut count = 0;
    for ty in network_types {
        for (id, res) in resources_of_type(&t, ty) {
            assert_eq!(s(&res["Condition"]), CONDITION, "{id}");
            count += 1;
        }
    }
    assert!(count >= 24, "{count} network resources");
    let out = &t["Outputs"]["EgressIps"];
    assert_eq!(s(&out["Condition"]), CONDITION);
    let join: Value =
        serde_norway::from_str(r#"!Join [",", [!Ref EgressIpA, !Ref EgressIpB]]"#).unwrap();
    assert_eq!(out["Value"], join);
}

#[test]
fn each_az_leaves_through_its_own_nat_gateway_and_elastic_ip() {
    let t = template();
    let res = &t["Resources"];
    for (az_index, az) in [(0, "A"), (1, "B")] {
        let private = &res[format!("EgressPrivateSubnet{az}").as_str()]["Properties"];
        let public = &res[format!("EgressPublicSubnet{az}").as_str()]["Properties"];
        let select: Value =
            serde_norway::from_str(&format!("!Select [{az_index}, !GetAZs \"\"]")).unwrap();
        assert_eq!(private["AvailabilityZone"], select, "private {az}");
        assert_eq!(public["AvailabilityZone"], select, "public {az}");
        assert_eq!(private["MapPublicIpOnLaunch"].as_bool(), Some(false));
        // The private subnet's table: default route to this AZ's NAT gateway.
        let table = format!("EgressPrivateRouteTable{az}");
        let assoc = &res[format!("EgressPrivateSubnet{az}RouteTable").as_str()]["Properties"];
        assert_eq!(assoc["SubnetId"], r(&format!("EgressPrivateSubnet{az}")));
        assert_eq!(assoc["RouteTableId"], r(&table));
        let route = &res[format!("EgressPrivateDefaultRoute{az}").as_str()]["Properties"];
        assert_eq!(route["RouteTableId"], r(&table));
        assert_eq!(s(&route["DestinationCidrBlock"]), "0.0.0.0/0");
        assert_eq!(route["NatGatewayId"], r(&format!("EgressNatGateway{az}")));
        // The NAT gateway: in this AZ's public subnet, with this AZ's Elastic IP.
        let nat = &res[format!("EgressNatGateway{az}").as_str()]["Properties"];
        assert_eq!(nat["SubnetId"], r(&format!("EgressPublicSubnet{az}")));
        assert_eq!(
            intrinsic(&nat["AllocationId"], "GetAtt").as_deref(),
            Some(format!("EgressIp{az}.AllocationId").as_str())
        );
        // An address banks registered must outlive the stack.
        let eip = &res[format!("EgressIp{az}").as_str()];
        assert_eq!(s(&eip["DeletionPolicy"]), "Retain", "EgressIp{az}");
        assert_eq!(s(&eip["Properties"]["Domain"]), "vpc");
    }
    // The public subnets reach the internet gateway; the private ones never do directly.
    let public_route = &res["EgressPublicDefaultRoute"]["Properties"];
    assert_eq!(public_route["GatewayId"], r("EgressInternetGateway"));
    for (id, route) in resources_of_type(&t, "AWS::EC2::Route") {
        if id.starts_with("EgressPrivate") {
            assert!(route["Properties"]["GatewayId"].is_null(), "{id}");
        }
    }
}

#[test]
fn dynamodb_skips_the_nat_and_the_bank_group_only_lets_https_out() {
    let t = template();
    let res = &t["Resources"];
    let ep = &res["EgressDynamoDbEndpoint"]["Properties"];
    assert_eq!(s(&ep["VpcEndpointType"]), "Gateway");
    assert_eq!(
        intrinsic(&ep["ServiceName"], "Sub").as_deref(),
        Some("com.amazonaws.${AWS::Region}.dynamodb")
    );
    assert_eq!(
        ep["RouteTableIds"].as_sequence().unwrap().as_slice(),
        [r("EgressPrivateRouteTableA"), r("EgressPrivateRouteTableB")]
    );
    let bank = &res["BankEgressSecurityGroup"]["Properties"];
    assert!(bank["SecurityGroupIngress"].is_null());
    let ports: BTreeSet<(String, u64, u64)> = bank["SecurityGroupEgress"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|rule| {
            (
                s(&rule["IpProtocol"]),
                rule["FromPort"].as_u64().unwrap(),
                rule["ToPort"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ports,
        [("tcp".to_owned(), 443, 443), ("tcp".to_owned(), 4443, 4443)].into()
    );
    assert!(res["WebhookEgressSecurityGroup"]["Properties"]["SecurityGroupIngress"].is_null());
}
