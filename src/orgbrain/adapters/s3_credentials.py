"""AWS credentials from the shared files, for the S3 blob store.

obstore reads the standard variables (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``, ``AWS_REGION``/``AWS_DEFAULT_REGION``, web identity, ECS and EC2
instance roles) but not the files the AWS CLI writes. This reads a profile's static keys
and region from them (``AWS_PROFILE``, default ``default``; ``AWS_SHARED_CREDENTIALS_FILE``
and ``AWS_CONFIG_FILE`` move them), as the AWS SDKs do. Profiles that fetch keys (SSO,
``role_arn``, ``credential_process``) are not followed: ``aws configure
export-credentials --format env`` turns them into variables.
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["shared_credentials"]

_KEYS = {
    "aws_access_key_id": "access_key_id",
    "aws_secret_access_key": "secret_access_key",
    "aws_session_token": "session_token",
}


def shared_credentials(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The S3Store settings (keys, region) the shared files give, for what the
    environment leaves unset; empty when the variables hold keys or no file has them."""
    e = os.environ if env is None else env
    profile = e.get("AWS_PROFILE") or e.get("AWS_DEFAULT_PROFILE") or "default"
    home = Path(e.get("HOME") or Path.home())
    found: dict[str, str] = {}
    if not e.get("AWS_ACCESS_KEY_ID"):
        creds = _section(
            Path(e.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws/credentials"), profile
        )
        if creds.get("aws_access_key_id") and creds.get("aws_secret_access_key"):
            found = {_KEYS[k]: v for k, v in creds.items() if k in _KEYS and v}
    if not (e.get("AWS_REGION") or e.get("AWS_DEFAULT_REGION")):
        name = profile if profile == "default" else f"profile {profile}"
        region = _section(Path(e.get("AWS_CONFIG_FILE") or home / ".aws/config"), name).get(
            "region"
        )
        if region:
            found["region"] = region
    return found


def _section(path: Path, name: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error):
        return {}
    return dict(parser[name]) if parser.has_section(name) else {}
