"""The write-back gate's detector of secrets, credentials and personal data: every rule
on an example of its own, ordinary organisation knowledge left alone, the checks the
rules lean on, the labelled sets held to floors, and ``orgbrain eval sensitive``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbrain.cli import cli
from orgbrain.errors import InvalidInput
from orgbrain.evals.sensitive import load_examples, run_sensitive, sensitive_json
from orgbrain.model import RunProducts
from orgbrain.scopes import Visibility
from orgbrain.writeback import Draft, detect, judge
from orgbrain.writeback.sensitive import RULES, SENSITIVE_KINDS, Sensitivity
from orgbrain.writeback.sensitive.personal import role_address
from orgbrain.writeback.sensitive.rule import iban_ok, looks_random, luhn_ok, placeholder

# Token-shaped values are assembled here so that no whole one sits in the source.
R36 = "4f8Kq2Lz9XbT1mN6pR3sV7wY0aC5dE8gH2jK"
HEX32 = "9b1c4e7f2a8d3b6e0c5f1a9d4e7b2c8f"
JWT = ".".join(
    (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )
)

# (rule, text, the exact span reported): one example per rule, so a rule nobody
# exercises fails test_every_rule_has_an_example.
RULE_TABLE: list[tuple[str, str, str]] = [
    ("orgbrain-key", f"KEY=ob_3f9c0a2d4e6b8a1c_{HEX32}", f"ob_3f9c0a2d4e6b8a1c_{HEX32}"),
    (
        "aws-access-key-id",
        "uploaded with AKIA2E0A8F3B244C9986 from a laptop",
        "AKIA2E0A8F3B244C9986",
    ),
    ("gcp-api-key", "maps key AIza" + R36[:35] + " restricted", "AIza" + R36[:35]),
    ("gcp-oauth-token", "gcloud gave ya29." + R36, "ya29." + R36),
    ("gcp-client-secret", "client GOCSPX-" + R36[:28], "GOCSPX-" + R36[:28]),
    ("azure-client-secret", "app secret Xy98Q~" + R36[:34], "Xy98Q~" + R36[:34]),
    ("github-token", "the deploy token ghp_" + R36 + " expired", "ghp_" + R36),
    ("gitlab-token", "runner: glpat-" + R36[:20], "glpat-" + R36[:20]),
    ("slack-token", "bot xoxb-2938475610-" + R36[:24], "xoxb-2938475610-" + R36[:24]),
    ("stripe-secret-key", "use sk_live_" + R36 + " for charges", "sk_live_" + R36),
    ("llm-api-key", "my openai key sk-proj-" + R36, "sk-proj-" + R36),
    ("npm-token", "publish with npm_" + R36, "npm_" + R36),
    ("pypi-token", "twine uses pypi-AgE" + R36 + R36[:10], "pypi-AgE" + R36 + R36[:10]),
    ("huggingface-token", "HF hf_" + R36[:34], "hf_" + R36[:34]),
    ("sendgrid-key", "mail SG." + R36[:22] + "." + R36, "SG." + R36[:22] + "." + R36),
    ("twilio-key", "sms via SK" + HEX32, "SK" + HEX32),
    (
        "grafana-token",
        "dashboards glsa_" + R36[:32] + "_4f1c9e2b",
        "glsa_" + R36[:32] + "_4f1c9e2b",
    ),
    ("vault-token", "root token hvs." + R36, "hvs." + R36),
    ("shopify-token", "store shpat_" + HEX32, "shpat_" + HEX32),
    ("digitalocean-token", "droplets dop_v1_" + HEX32 * 2, "dop_v1_" + HEX32 * 2),
    ("telegram-bot-token", "bot 123456789:AA" + R36[:33], "123456789:AA" + R36[:33]),
    ("jwt", f"Authorization: Bearer {JWT}", JWT),
    (
        "private-key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    ),
    ("url-credentials", "postgres://admin:s3cretPass@db.internal:5432/prod", "s3cretPass"),
    ("azure-account-key", "AccountName=logs;AccountKey=" + R36 + "==;", R36 + "=="),
    ("signed-url", "https://x.blob.core.windows.net/e?sv=2022&sig=" + R36, R36),
    (
        "slack-webhook",
        "https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/x9Kq3Lm",
        "T024BE7LD/B01ABCDEF12/x9Kq3Lm",
    ),
    ("auth-header", "curl -H 'Authorization: Bearer " + R36 + "'", R36),
    ("assigned-secret", f'api_key = "{HEX32}"', HEX32),
    ("argument-secret", "aws configure set aws_secret_access_key " + R36, R36),
    ("stated-secret", "The datadog api key is " + HEX32 + ", rotate it.", HEX32),
    ("config-password", "DB_PASSWORD=pg-Pr0d-2024", "pg-Pr0d-2024"),
    ("stated-password", "The guest wifi password is sunshine.", "sunshine"),
    ("password-after", "login with root and password toor on the VMs", "toor"),
    ("login-pair", "Log in to the router with admin / admin.", "admin"),
    (
        "email",
        "Priya's personal email is priya.sharma1987@gmail.com.",
        "priya.sharma1987@gmail.com",
    ),
    ("phone", "You can text me on 07700 900123 tonight.", "07700 900123"),
    ("card-number", "Refund to card 4532 0151 1283 0366, exp 09/27.", "4532 0151 1283 0366"),
    ("iban", "Pay IBAN DE89 3704 0044 0532 0130 00 today.", "DE89 3704 0044 0532 0130 00"),
    ("us-ssn", "His SSN is 512-44-8901.", "512-44-8901"),
    ("uk-nino", "NI number AB 12 34 56 C for the new starter.", "AB 12 34 56 C"),
    ("id-document", "Passport number for the booking: 533380006, Sam.", "533380006"),
    ("home-address", "Sam lives at 42 Elm Street, Springfield.", "42 Elm Street"),
    ("date-of-birth", "Fatima's date of birth is 14/03/1991.", "14/03/1991"),
    ("health", "Sam is on medical leave until May.", "medical leave"),
    ("pay", "Omar's salary is $182,000.", "salary"),
    ("performance", "Dana is on a performance improvement plan.", "performance improvement plan"),
    ("immigration", "Fatima's visa expires in August.", "visa"),
    ("private-life", "Omar mentioned he is going through a divorce.", "divorce"),
]


@pytest.mark.parametrize(("rule", "text", "found"), RULE_TABLE, ids=[r for r, _, _ in RULE_TABLE])
def test_each_rule_finds_its_example(rule: str, text: str, found: str) -> None:
    result = detect(text)
    assert rule in result.rules, result
    assert found in [text[s:e] for s, e in result.spans], result
    kind = next(r.kind for r in RULES if r.name == rule)
    assert kind in result.kinds and result.sensitive
    # the reasons say what was found, never the text itself
    assert all(found not in reason for reason in result.reasons)


def test_every_rule_has_an_example_and_a_kind() -> None:
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(r for r, _, _ in RULE_TABLE)
    assert {r.kind for r in RULES} == set(SENSITIVE_KINDS)


NOT_SENSITIVE = [
    "Priya owns the billing service from now on.",
    "Dana is the escalation contact for payments.",
    "Bumped the version to 2.3.1 and tagged v2.3.1 on main.",
    "The fix landed in commit 9f3c2a1b7e4d5f60a1b2c3d4e5f60718293a4b5c.",
    "Request ids look like 550e8400-e29b-41d4-a716-446655440000 in the logs.",
    "Dashboards live at https://grafana.internal.example.com/d/payments.",
    "The staging database listens on 10.0.4.17:5432.",
    "The AWS account id for production is 123456789012.",
    "Questions go to data-platform@acme.com or security@acme.io.",
    "Docs use user@example.com as the sample address.",
    "The service account is deploy-bot@acme-prod.iam.gserviceaccount.com.",
    "Our Berlin office is at Torstraße 49, 10119 Berlin.",
    "The London office moved to 1 Finsbury Avenue, London EC2M 2PP.",
    "The Stripe API key lives in Vault at secret/data/payments/stripe.",
    "The database password is stored in AWS Secrets Manager.",
    "The admin password is required for schema changes.",
    "Password manager: 1Password (shared credentials go in the company vault).",
    "password: ${DB_PASSWORD}",
    "AWS_SECRET_ACCESS_KEY=<your secret key here>",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    'password = os.environ["DB_PASSWORD"]',
    "key = Fernet.generate_key()",
    "The cache key format is tenant:{id}:session:{sid}.",
    "The CI cache key is linux-node-20-lockfile-v3.",
    "KEY=ob_3f9c0a2d4e6b8a1c_5d2e...; curl -H 'Authorization: Bearer $KEY'",
    "Local dev: DATABASE_URL=postgresql://postgres:postgres@localhost:5432/app",
    "Use test card 4242 4242 4242 4242 in Stripe test mode.",
    "In test mode 4000 0566 5566 5556 is the debit card.",
    "Order 1234567812345678 was refunded twice.",
    "The support hotline is 1-800-555-0199, staffed 24/7.",
    "Salary bands for L5 engineers are reviewed every April by People Ops.",
    "Parental leave is 20 weeks at full pay for all parents.",
    "Sam is on vacation next week; Leo covers on-call.",
    "Mina was promoted to staff engineer.",
    "The company was founded on 3 May 2011 in Lisbon.",
    "The PIP package index mirror is at https://pypi.internal.acme.com/simple.",
    "To analyse several packages, pass each package name as an argument.",
    "OpenMP is effectively disabled inside the worker pool.",
    "I deleted the staging bucket by accident; it is restored now.",
    "As a bonus, the new parser is twice as fast.",
    "The public key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5 ci.",
    "The SSN field is masked as ***-**-1234 in the UI.",
    "",
]


@pytest.mark.parametrize("text", NOT_SENSITIVE)
def test_organisation_knowledge_is_not_sensitive(text: str) -> None:
    assert detect(text) == Sensitivity()


def test_a_match_inside_another_is_counted_once() -> None:
    # the password's "@db.internal" is not an email address
    found = detect("MONGO_URI=mongodb+srv://reporting:Zq8!vLp2@cluster0.ab1cd.mongodb.net/x")
    assert found.rules == ("url-credentials",) and found.kinds == ("secret",)
    # a pair of kinds in one text: both reported, in the fixed order
    both = detect("Login: jane.doe@acme-example.com / Summer2024!")
    assert both.kinds == ("credential", "personal")


def test_checks_the_rules_lean_on() -> None:
    assert luhn_ok("4532015112830366") and not luhn_ok("4532015112830367")
    assert iban_ok("GB29 NWBK 6016 1331 9268 19") and not iban_ok("GB30NWBK60161331926819")
    assert not iban_ok("not an iban")
    assert all(placeholder(v) for v in ("${X}", "<key>", "***", "changeme", "your_key_here"))
    assert not placeholder("hunter2")
    assert looks_random(HEX32) and looks_random(R36)
    assert not looks_random("linux-node-20-lockfile") and not looks_random("short1")
    assert not looks_random("abc123..." + R36 + "...")
    assert role_address("release-team@acme.com") and role_address("x@example.org")
    assert not role_address("jane.doe@acme.com") and not role_address("maria.lopez.dev@x.io")


@pytest.mark.parametrize(
    "text",
    [
        "a" * 2000,
        "1 " * 1000,
        "password is " * 160,
        "salary Sam " * 180,
        "+1 " * 660,
        "login " + "a/" * 900,
        "Calle " + "x " * 900,
        "0" * 2000,
        "key = " * 300,
    ],
)
def test_detection_stays_fast_on_hostile_text(text: str) -> None:
    t0 = time.perf_counter()
    detect(text[:2000])  # the gate's longest proposal
    assert time.perf_counter() - t0 < 0.5


def test_the_gate_sends_what_is_found_to_the_inbox_without_the_text() -> None:
    run = RunProducts("r", "succeeded", "s")
    everything = Visibility.everything()
    secret = "ghp_" + R36
    verdict = judge(Draft("fact", f"The deploy token is {secret} for now.", 0.95), run, everything)
    assert (verdict.state, verdict.sensitivity) == ("pending", ("a GitHub token",))
    assert secret not in verdict.reason
    alias = Draft("fact", "Send incident reports to security@acme.io within a day.", 0.95)
    assert judge(alias, run, everything).state == "written"


# -- the labelled sets --------------------------------------------------------------------


def test_the_packaged_sets_are_big_enough_and_well_formed() -> None:
    dev, held = load_examples(), load_examples(heldout=True)
    assert len(dev) >= 200 and len(held) >= 40
    for examples in (dev, held):
        assert len({e.id for e in examples}) == len(examples)
        for kind in SENSITIVE_KINDS:
            assert sum(kind in e.kinds for e in examples) >= 5, kind
        assert sum(not e.kinds for e in examples) >= len(examples) // 3
    assert not {e.text for e in dev} & {e.text for e in held}


@pytest.mark.parametrize(("heldout", "floor"), [(False, 0.95), (True, 0.9)])
def test_the_detector_on_the_dev_and_held_out_sets(heldout: bool, floor: float) -> None:
    report = run_sensitive(load_examples(heldout=heldout), source="packaged")
    shown = sensitive_json(report)
    for kind, score in report.scores.items():
        assert score.precision >= floor and score.recall >= floor, (kind, shown)
    # what the gate acts on: a secret let through is worse than a fact held for review
    assert report.scores["sensitive"].recall >= 0.95, shown


def test_load_examples_refuses_bad_records(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "x", "kinds": ["secret"]}\n{"id": "b"}\n')
    with pytest.raises(InvalidInput, match="line 2"):
        load_examples(bad)
    bad.write_text('{"id": "a", "text": "x", "kinds": ["gossip"]}\n')
    with pytest.raises(InvalidInput, match="unknown kind 'gossip'"):
        load_examples(bad)


def test_eval_sensitive_from_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "tiny.jsonl"
    rows = [
        {"id": "1", "text": "The staging password is hunter2.", "kinds": ["credential"]},
        {"id": "2", "text": "Priya owns billing.", "kinds": []},
        {"id": "3", "text": "Sam is on medical leave.", "kinds": []},  # labelled wrong
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runner = CliRunner()
    result = runner.invoke(cli, ["eval", "sensitive", str(path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["kinds"]["credential"] == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "tp": 1,
        "fp": 0,
        "fn": 0,
    }
    assert report["kinds"]["personal"]["fp"] == 1
    assert [m["id"] for m in report["misses"]] == ["3"]
    text = runner.invoke(cli, ["eval", "sensitive", "--heldout", "--misses"])
    assert text.exit_code == 0 and "sensitive_heldout.jsonl" in text.output
    assert "precision" in text.output
    both = runner.invoke(cli, ["eval", "sensitive", str(path), "--heldout"])
    assert both.exit_code != 0 and "not both" in both.output


def test_the_exports_are_real() -> None:
    from orgbrain.evals import sensitive as evals_sensitive
    from orgbrain.writeback import sensitive

    # ruff (RUF022) keeps each __all__ sorted; here, every name is there once
    for module in (sensitive, evals_sensitive):
        assert len(set(module.__all__)) == len(module.__all__), module.__name__
        assert all(hasattr(module, name) for name in module.__all__), module.__name__
