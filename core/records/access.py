r"""Who may do what: signed-in users, administrators, per-knowledge-base access and redaction.

Everything here reads plain mappings, so the source can change without touching callers:
today ``components.auth`` passes the ``[yinzheng]`` section of ``.streamlit/secrets.toml``
(``st.secrets``), one table per knowledge-base name (``core.store.knowledge_bases``); a question
over several knowledge bases is redacted by the rules of every one of them that redacts
(:meth:`AccessConfig.redactor`). Shape of the section::

    [yinzheng]
    admins = ["alice@example.com"]          # e-mail addresses (verified) or opaque user ids
    user_id_key = "…"                       # optional; default: [auth] cookie_secret
    issuers_without_email_verified = []     # optional: issuers ("iss") trusted without the claim

    [yinzheng.knowledge_bases.default]      # one table per knowledge base name
    access = ["bob@example.com", "@example.org"]   # users, "@domain"s, or "*"; missing: everyone
    redaction = true                         # redact personal data before storage
    redaction_patterns = { "工号" = 'EMP-\d{6}' }   # extra rules: placeholder name -> regex

A user is identified by :func:`opaque_user_id`, a keyed hash (HMAC-SHA256) of the OIDC
``iss`` and ``sub`` claims: stable per account, meaningless outside this deployment, never
the token. E-mail addresses are only compared, never stored, and only count when the
provider says ``email_verified: true``; a provider that never sends the claim is trusted
without it only when its issuer is listed in ``issuers_without_email_verified``. ``user=None`` means local
single-user mode: that user may do everything, as before sign-in existed.

Errors: ``ConfigError`` (naming the key) for a malformed section or pattern.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from core.errors import ConfigError
from core.records.redaction import BUILTIN_RULES, Redactor, Rule, extra_rules


def opaque_user_id(issuer: str, subject: str, key: str) -> str:
    """A 32-hex-character id for the OIDC account (``iss``, ``sub``): HMAC-SHA256 under
    ``key``. Raises ``ConfigError`` when ``key`` is empty or a claim is missing."""
    if not key:
        raise ConfigError("yinzheng.user_id_key (or auth.cookie_secret) must be set to sign users in")
    if not issuer or not subject:
        raise ConfigError("the identity provider returned no 'iss' or 'sub' claim")
    message = f"{issuer}\x00{subject}".encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True)
class User:
    """A signed-in user: ``user_id`` (opaque, stored with records), ``email`` (lower case,
    only when the provider verified it; compared, never stored) and a display ``name``."""

    user_id: str
    email: str | None = None
    name: str = ""

    @classmethod
    def from_claims(cls, claims: Mapping[str, Any], key: str, trusted_issuers: Sequence[str] = ()) -> "User":
        """From OIDC ID-token claims (``st.user``). The ``email`` counts only with
        ``email_verified`` true (boolean ``true`` or the string ``"true"``, as e.g. Amazon
        Cognito sends it; never a number); a missing claim counts as unverified unless ``iss`` is one of
        ``trusted_issuers`` (an explicit false is unverified from every issuer)."""
        email, issuer = claims.get("email"), str(claims.get("iss") or "")
        verified = claims.get("email_verified")
        if verified is None and "email_verified" not in claims and issuer in trusted_issuers:
            verified = True
        verified = verified is True or (isinstance(verified, str) and verified.strip().lower() == "true")
        email = str(email).strip().lower() if email and verified else None
        name = str(claims.get("name") or email or "").strip()
        return cls(opaque_user_id(issuer, str(claims.get("sub") or ""), key), email, name)

    def matches(self, entry: str) -> bool:
        """Whether an access-list ``entry`` names this user: ``*``, ``@domain``, an e-mail or a user id."""
        entry = entry.strip().lower()
        if entry == "*":
            return True
        if entry.startswith("@"):
            return bool(self.email) and self.email.endswith(entry)
        return entry in (self.email, self.user_id)


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of strings, got {value!r}")
    return tuple(v.strip() for v in value if v.strip())


@dataclass(frozen=True)
class KbPolicy:
    """Access and redaction of one knowledge base. ``access`` None: everyone may ask."""

    name: str
    access: tuple[str, ...] | None = None
    redaction: bool = False
    redaction_patterns: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, name: str, settings: Mapping[str, Any]) -> "KbPolicy":
        """The policy in a knowledge base's ``settings`` mapping (keys ``access``,
        ``redaction``, ``redaction_patterns``; others are ignored). Raises ``ConfigError``."""
        where = f"yinzheng.knowledge_bases.{name}"
        access = settings.get("access")
        redaction = settings.get("redaction", False)
        if not isinstance(redaction, bool):
            raise ConfigError(f"{where}.redaction must be true or false, got {redaction!r}")
        patterns = settings.get("redaction_patterns") or {}
        if not isinstance(patterns, Mapping):
            raise ConfigError(f"{where}.redaction_patterns must be a table name = regex, got {patterns!r}")
        policy = cls(name, None if access is None else _strings(access, f"{where}.access"), redaction, dict(patterns))
        policy.redactor()  # validates the patterns now, not at the first question
        return policy

    def may_ask(self, user: User | None) -> bool:
        """Local mode (``user`` None) and an unrestricted base: yes; else the access list decides."""
        return user is None or self.access is None or any(user.matches(e) for e in self.access)

    def redactor(self) -> Redactor | None:
        """The redactor for this base (built-in rules + its patterns), or None when off."""
        return Redactor(BUILTIN_RULES + extra_rules(self.redaction_patterns)) if self.redaction else None


@dataclass(frozen=True)
class AccessConfig:
    """Administrators and knowledge-base policies of a deployment."""

    admins: tuple[str, ...] = ()
    user_id_key: str = ""
    policies: Mapping[str, KbPolicy] = field(default_factory=dict)
    #: Issuers whose e-mail addresses count without an ``email_verified`` claim (see ``User.from_claims``).
    issuers_without_email_verified: tuple[str, ...] = ()

    @classmethod
    def from_mapping(cls, section: Mapping[str, Any], fallback_key: str = "") -> "AccessConfig":
        """From the ``[yinzheng]`` section (see the module docstring); ``fallback_key`` is
        used when it sets no ``user_id_key``. Raises ``ConfigError`` naming a bad key."""
        kbs = section.get("knowledge_bases") or {}
        if not isinstance(kbs, Mapping):
            raise ConfigError(f"yinzheng.knowledge_bases must be a table, got {kbs!r}")
        policies = {}
        for name, settings in kbs.items():
            if not isinstance(settings, Mapping):
                raise ConfigError(f"yinzheng.knowledge_bases.{name} must be a table, got {settings!r}")
            policies[str(name)] = KbPolicy.from_settings(str(name), settings)
        key = str(section.get("user_id_key") or fallback_key or "")
        trusted = _strings(section.get("issuers_without_email_verified"), "yinzheng.issuers_without_email_verified")
        return cls(_strings(section.get("admins"), "yinzheng.admins"), key, policies, trusted)

    def user(self, claims: Mapping[str, Any]) -> User:
        """The ``User`` of OIDC claims under this deployment's ``user_id_key`` and trusted
        issuers (:meth:`User.from_claims`). Raises ``ConfigError`` without a key or ``iss``/``sub``."""
        return User.from_claims(claims, self.user_id_key, self.issuers_without_email_verified)

    def redactor(self, knowledge_bases: Sequence[str]) -> Redactor | None:
        """One redactor for a question over ``knowledge_bases``: the rules of every one of
        them whose policy redacts (built-in rules once, then each base's own patterns; a
        pattern name seen twice keeps its first rule), or None when none does."""
        rules: dict[str, Rule] = {}
        for kb in knowledge_bases:
            red = self.policy(kb).redactor()
            for rule in red.rules if red is not None else ():
                rules.setdefault(rule.name, rule)
        return Redactor(rules.values()) if rules else None

    def policy(self, kb: str) -> KbPolicy:
        """The policy of ``kb`` (an unconfigured base: open, no redaction)."""
        return self.policies.get(kb) or KbPolicy(kb)

    def is_admin(self, user: User | None) -> bool:
        """Local mode: yes. Signed in: only a user listed in ``admins``."""
        return user is None or any(user.matches(e) for e in self.admins if e != "*")

    def askable(self, user: User | None, knowledge_bases: Sequence[str]) -> tuple[str, ...]:
        """The ones of ``knowledge_bases`` (names, order kept) that ``user`` may ask: all of
        them in local mode (``user`` None) or for an unrestricted base. This set is what a
        question searches (``core.engine.Engine.searchable``): retrieval ranks only its
        chunks, for BM25 and dense alike, so no other base's text is ranked, cited or shown."""
        return tuple(kb for kb in knowledge_bases if self.policy(kb).may_ask(user))
