#!/usr/bin/env python3
"""Deploy rehearsal without an AWS account (issue 21, item 10).

For each scenario (a set of template parameter values) this runs what CloudFormation runs at
deploy time, as near as can be done here:

1. the SAM transform (aws-sam-translator, the library CloudFormation's
   AWS::Serverless-2016-10-31 transform is), template.yaml -> plain CloudFormation;
2. the template's Conditions evaluated with the scenario's parameters: resources and outputs
   whose condition is false dropped, every Fn::If replaced by its branch, AWS::NoValue removed.

It writes <out>/<scenario>.json: {"parameters": {...}, "template": <resolved CloudFormation>}.
The checks over those files are a Rust test (infra/devserver/tests/template_rehearsal.rs,
which runs this script): references resolve, environments are what the code reads, IAM is
what the code calls. With --lint, cfn-lint (the .venv one) also checks each resolved template.

Runs with the .venv/sam interpreter (scripts/venv.sh sam: aws-sam-cli, which brings the
pinned aws-sam-translator). Makes no network call: managed policies are named by ARN.
"""

import argparse
import json
import os
import subprocess
import sys

# The transform asks boto for a region (for ARNs); nothing is called.
os.environ["AWS_DEFAULT_REGION"] = "eu-central-1"
os.environ.setdefault("AWS_ACCESS_KEY_ID", "rehearsal")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "rehearsal")

import logging

from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

WEB_ACL = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/paygate-dev-edge/0123abcd"

# Scenario name -> parameter values besides the defaults. Every non-default mode of every
# deploy-shape parameter appears in at least one scenario; "default" is a plain deploy.
SCENARIOS = {
    "default": {},
    "static-ips": {"EgressMode": "static-ips"},
    "waf": {"EdgeProtection": "waf", "EdgeWebAclArn": WEB_ACL},
    "all-at-once": {"DeploymentType": "AllAtOnce"},
    "everything": {
        "EgressMode": "static-ips",
        "EdgeProtection": "waf",
        "EdgeWebAclArn": WEB_ACL,
        "MalformedKeyAnswer": "deny",
        "DeploymentType": "Linear10PercentEvery1Minute",
        "AlarmTopicArn": "arn:aws:sns:eu-central-1:123456789012:paygate-alarms",
    },
}

# The resolved templates cfn-lint reads with --lint.
LINTED = ("default.cfn.json", "everything.cfn.json")

PSEUDO = {
    "AWS::Region": "eu-central-1",
    "AWS::Partition": "aws",
    "AWS::AccountId": "123456789012",
    "AWS::StackName": "paygate-rehearsal",
    "AWS::URLSuffix": "amazonaws.com",
}


class NoIam:
    """Managed policies are given by ARN in template.yaml: no lookup is needed."""

    def load(self):
        return {}


def parameter_values(template, overrides):
    params = template.get("Parameters", {})
    unknown = sorted(set(overrides) - set(params))
    if unknown:
        sys.exit(f"sam_rehearse.py: scenario names unknown parameters {unknown}")
    values = {name: str(p["Default"]) for name, p in params.items() if "Default" in p}
    values.update(overrides)
    for name, p in params.items():
        allowed = p.get("AllowedValues")
        if allowed is not None and values.get(name) not in [str(a) for a in allowed]:
            sys.exit(f"sam_rehearse.py: {name}={values.get(name)!r} is not one of {allowed}")
    return values


def evaluate(cond, values, conditions, memo):
    """A condition expression's truth, with parameters at `values`."""
    if isinstance(cond, dict) and len(cond) == 1:
        (fn, arg), = cond.items()
        if fn == "Condition":
            return condition(arg, values, conditions, memo)
        if fn == "Fn::Equals":
            a, b = (scalar(x, values) for x in arg)
            return a == b
        if fn == "Fn::Not":
            return not evaluate(arg[0], values, conditions, memo)
        if fn == "Fn::And":
            return all(evaluate(x, values, conditions, memo) for x in arg)
        if fn == "Fn::Or":
            return any(evaluate(x, values, conditions, memo) for x in arg)
    raise SystemExit(f"sam_rehearse.py: cannot evaluate condition {cond!r}")


def scalar(x, values):
    if isinstance(x, dict) and set(x) == {"Ref"}:
        if x["Ref"] not in values:
            raise SystemExit(f"sam_rehearse.py: condition refers to unknown {x['Ref']}")
        return str(values[x["Ref"]])
    if isinstance(x, (str, int, float, bool)):
        return str(x)
    raise SystemExit(f"sam_rehearse.py: cannot evaluate {x!r} in a condition")


def condition(name, values, conditions, memo):
    if name not in memo:
        if name not in conditions:
            raise SystemExit(f"sam_rehearse.py: unknown condition {name}")
        memo[name] = evaluate(conditions[name], values, conditions, memo)
    return memo[name]


NO_VALUE = object()


def resolve(node, truth):
    """`node` with every Fn::If replaced by its branch and AWS::NoValue removed."""
    if isinstance(node, dict):
        if set(node) == {"Fn::If"}:
            name, yes, no = node["Fn::If"]
            return resolve(yes if truth(name) else no, truth)
        if node == {"Ref": "AWS::NoValue"}:
            return NO_VALUE
        out = {}
        for k, v in node.items():
            r = resolve(v, truth)
            if r is not NO_VALUE:
                out[k] = r
        return out
    if isinstance(node, list):
        return [r for r in (resolve(v, truth) for v in node) if r is not NO_VALUE]
    return node


def rehearse(template_text, overrides):
    sam = yaml_parse(template_text)
    values = parameter_values(sam, overrides)
    # What `sam deploy` does first: each function's folder zipped and uploaded, CodeUri
    # rewritten to the object (the key names the folder, so the output still tells which).
    for body in sam.get("Resources", {}).values():
        props = body.get("Properties", {})
        if body.get("Type") == "AWS::Serverless::Function" and isinstance(props.get("CodeUri"), str):
            folder = props["CodeUri"].rstrip("/").rsplit("/", 1)[-1]
            props["CodeUri"] = f"s3://paygate-rehearsal-artifacts/{folder}.zip"
    cfn = transform(sam, {**PSEUDO, **values}, NoIam())
    conditions = cfn.get("Conditions", {})
    memo = {}

    def truth(name):
        # A condition may test a pseudo parameter (OutsideAwsPartition: AWS::Partition).
        return condition(name, {**PSEUDO, **values}, conditions, memo)

    for section in ("Resources", "Outputs"):
        kept = {}
        for name, body in cfn.get(section, {}).items():
            if "Condition" in body and not truth(body.pop("Condition")):
                continue
            kept[name] = resolve(body, truth)
        cfn[section] = kept
    # Deployed with these values: they are the parameters' defaults now (cfn-lint resolves
    # a Ref to a parameter's default).
    for name, param in cfn.get("Parameters", {}).items():
        if name in overrides:
            param["Default"] = overrides[name]
    # Every condition is decided: a resolved template has none left.
    cfn.pop("Conditions", None)
    for body in cfn["Resources"].values():
        body.pop("Condition", None)
    return {"parameters": values, "template": cfn}


def main():
    # The translator logs its feature toggles at INFO; only failures matter here.
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("samtranslator").setLevel(logging.ERROR)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--template", default=os.path.join(root, "template.yaml"))
    ap.add_argument("--out", default=os.path.join(root, "target", "rehearsal"))
    ap.add_argument("--lint", action="store_true", help="cfn-lint each resolved template")
    args = ap.parse_args()
    with open(args.template, encoding="utf-8") as f:
        text = f.read()
    os.makedirs(args.out, exist_ok=True)
    plain = []
    for name, overrides in SCENARIOS.items():
        result = rehearse(text, overrides)
        path = os.path.join(args.out, f"{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1, sort_keys=True)
        # The resolved template alone: no Transform left, no conditions to combine.
        plain.append(os.path.join(args.out, f"{name}.cfn.json"))
        with open(plain[-1], "w", encoding="utf-8") as f:
            json.dump(result["template"], f, indent=1)
        print(f"rehearsed {name}: {len(result['template']['Resources'])} resources -> {path}")
    if args.lint:
        # One cfn-lint run (dependency cycles, types, references as CloudFormation will see
        # them) over every mode off ("default") and every mode on ("everything"): the others
        # add nothing those two lack, and each template costs seconds. W2001: a parameter
        # only a decided condition used is unused now.
        lint = os.path.join(root, ".venv", "bin", "cfn-lint")
        linted = [p for p in plain if os.path.basename(p) in LINTED]
        subprocess.run([lint, "--ignore-checks", "W2001", "--", *linted], check=True)

if __name__ == "__main__":
    main()
