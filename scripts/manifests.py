#!/usr/bin/env python3
"""The Kubernetes manifests (deploy/kubernetes/), kept in step with the service.

  python3 scripts/manifests.py generate   # base/prometheusrule.yaml from deploy/alerts.yml
  python3 scripts/manifests.py check      # what .ci/run does (needs kubectl, and
                                           # kubernetes-validate: scripts/requirements-ci.txt)

`check` renders every overlay with `kubectl kustomize`, validates each object
against the Kubernetes schemas offline (kubernetes-validate, strict), and
fails when the manifests disagree with the service: probe paths and ports,
the admin port, the environment variables it reads, the termination grace
period against shutdown delay + grace, the image's user, the alert rules; and,
for the keyless overlay, Microsoft Entra Workload Identity: the ServiceAccount's
client id, the pods' label, no API key, no database password.
"""

import base64
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parent.parent
KUBE = ROOT / "deploy" / "kubernetes"
ALERTS = ROOT / "deploy" / "alerts.yml"
RULE = KUBE / "base" / "prometheusrule.yaml"
# Each overlay and what it must be: its store, and how it authenticates to
# Azure OpenAI and PostgreSQL ("secrets": an API key and a password from the
# Secret; "workload-identity": Microsoft Entra tokens of the pods' identity on
# AKS, no key, no password).
OVERLAYS = {
    "base": ("postgres", "secrets"),
    "overlays/sqlite": ("sqlite", "secrets"),
    "overlays/azure-workload-identity": ("postgres", "workload-identity"),
}
# The oldest Kubernetes the manifests are for (matchLabelKeys in topology
# spread: beta and on by default since 1.27).
KUBERNETES_VERSION = "1.30.0"
# Custom resources without a schema here (the Prometheus Operator's CRDs are
# not on a package registry); their content is checked below instead.
CUSTOM_KINDS = {"ServiceMonitor", "PrometheusRule"}
# Variables read outside the settings (src/otel.rs, src/telemetry.rs), and the
# Azure SDK's identity variables azure_openai.auth reads (config/default.toml;
# the AKS workload identity webhook injects all but AZURE_CLIENT_SECRET).
OTHER_ENV = re.compile(
    r"^(OTEL_[A-Z_]+|RUST_LOG|APP_ENV"
    r"|AZURE_(CLIENT_ID|TENANT_ID|FEDERATED_TOKEN_FILE|AUTHORITY_HOST|CLIENT_SECRET))$"
)
# Where the settings take Azure OpenAI's API key and the database URL from.
API_KEY_VARS = ("AZURE_OPENAI_API_KEY", "LINKUP__AZURE_OPENAI__API_KEY")
DATABASE_URL_VARS = ("DATABASE_URL", "LINKUP__POSTS__DATABASE_URL")
# Microsoft Entra Workload Identity (AKS): the webhook mutates pods with this
# label whose ServiceAccount carries the client id annotation.
WORKLOAD_IDENTITY_LABEL = "azure.workload.identity/use"
CLIENT_ID_ANNOTATION = "azure.workload.identity/client-id"


def prometheus_rule() -> str:
    """deploy/alerts.yml's groups as the spec of a PrometheusRule."""
    lines = ALERTS.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("groups:"))
    spec = "\n".join(("  " + line) if line else "" for line in lines[start:])
    return (
        "# Generated from deploy/alerts.yml by `python3 scripts/manifests.py generate`:\n"
        "# edit the alerts there (promtool tests them), never here.\n"
        "apiVersion: monitoring.coreos.com/v1\n"
        "kind: PrometheusRule\n"
        "metadata:\n"
        "  name: linkup-suggestions\n"
        "spec:\n" + spec + "\n"
    )


def generate() -> None:
    RULE.write_text(prometheus_rule())
    print(f"wrote {RULE.relative_to(ROOT)}")


class Problems(list):
    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            self.append(what)


def settings_keys() -> set[str]:
    """Every section.key of config/default.toml, the commented ones too."""
    keys, section = set(), None
    for line in (ROOT / "config" / "default.toml").read_text().splitlines():
        if m := re.match(r"^\[(\w+)\]", line):
            section = m.group(1)
        elif section and (m := re.match(r"^#? ?(\w+) = ", line)):
            keys.add(f"{section}.{m.group(1)}")
    return keys


def legacy_env() -> set[str]:
    """The TypeScript app's variables the settings accept (LEGACY_ENV)."""
    source = (ROOT / "src" / "settings" / "sources.rs").read_text()
    table = source.split("const LEGACY_ENV", 1)[1].split("];", 1)[0]
    return set(re.findall(r'\(\s*"([A-Z_]+)"', table))


def env_problem(name: str, keys: set[str], legacy: set[str]) -> str | None:
    if name in legacy or OTHER_ENV.match(name):
        return None
    if m := re.match(r"^LINKUP__([A-Z_]+?)__([A-Z_]+)$", name):
        key = f"{m.group(1).lower()}.{m.group(2).lower()}"
        if key in keys:
            return None
    return f"environment variable {name} is not one the service reads"


def port_of(addr: str) -> int:
    return int(addr.rsplit(":", 1)[1])


def image_user() -> int:
    m = re.search(r"useradd [^\n]*--uid (\d+)", (ROOT / "Dockerfile").read_text())
    return int(m.group(1))


def routes() -> set[str]:
    source = (ROOT / "src" / "api" / "probes.rs").read_text()
    return set(re.findall(r'\.route\("(/[a-z]+)"', source))


class Overlay:
    """One rendered overlay, with the views the checks share."""

    def __init__(self, backend: str, objects: list[dict], identity: str = "secrets"):
        self.backend = backend
        self.identity = identity
        self.by_kind: dict[str, list[dict]] = {}
        for o in objects:
            self.by_kind.setdefault(o["kind"], []).append(o)
        (self.deployment,) = self.by_kind["Deployment"]
        self.pod = self.deployment["spec"]["template"]["spec"]
        (self.container,) = self.pod["containers"]
        self.config = {}
        for ref in self.container.get("envFrom", []):
            name = ref["configMapRef"]["name"]
            (cm,) = [c for c in self.by_kind["ConfigMap"] if c["metadata"]["name"] == name]
            self.config.update(cm["data"])
        self.env = {e["name"]: e for e in self.container.get("env", [])}
        self.ports = {c["name"]: c["containerPort"] for c in self.container["ports"]}
        self.defaults = tomllib.loads((ROOT / "config" / "default.toml").read_text())

    def setting(self, section: str, key: str):
        """A setting's value in this overlay: the container's env value, else its ConfigMap's, else the default."""
        name = f"LINKUP__{section}__{key}".upper()
        if "value" in self.env.get(name, {}):
            return self.env[name]["value"]
        return self.config.get(name, self.defaults[section][key])

    def set_at(self, names) -> list[tuple[str, str | None]]:
        """Where the overlay sets any of these variables, with the value when it is in the overlay.

        Every ConfigMap's and Secret's keys, and the container's env: a
        literal value, or a reference to a Secret or ConfigMap (value None
        here; the referenced object, when rendered, is listed on its own)."""
        found = []
        for cm in self.by_kind.get("ConfigMap", []):
            for k, v in (cm.get("data") or {}).items():
                if k in names:
                    found.append((f"ConfigMap {cm['metadata']['name']}", v))
        for secret in self.by_kind.get("Secret", []):
            where = f"Secret {secret['metadata']['name']}"
            for k, v in (secret.get("data") or {}).items():
                if k in names:
                    found.append((where, base64.b64decode(v).decode()))
            for k, v in (secret.get("stringData") or {}).items():
                if k in names:
                    found.append((where, v))
        for var, e in self.env.items():
            refs = [r for r in (e.get("valueFrom") or {}).values() if isinstance(r, dict) and "key" in r]
            if var in names and "value" in e:
                found.append((f"env {var}", e["value"]))
            elif var in names or any(r["key"] in names for r in refs):
                sources = ", ".join(f"{r.get('name', '?')} key {r['key']}" for r in refs)
                found.append((f"env {var}" + (f" (from {sources})" if sources else ""), None))
        return found


def check_env(o: Overlay, p: Problems) -> None:
    """Every variable is one the service reads; secrets come from the Secret."""
    keys, legacy = settings_keys(), legacy_env()
    for var in list(o.config) + list(o.env):
        if problem := env_problem(var, keys, legacy):
            p.append(problem)
    for var, e in o.env.items():
        ref = e.get("valueFrom", {}).get("secretKeyRef")
        p.expect(ref is None or ref["key"] == var, f"{var} comes from the Secret's key {ref and ref['key']}")
    for secret in ("AZURE_OPENAI_API_KEY", "AZURE_CLIENT_SECRET", "DATABASE_URL", "LINKUP__SERVER__API_KEYS"):
        p.expect(secret not in o.config, f"{secret} is in the ConfigMap; it belongs in the Secret")
    if o.backend == "postgres":
        p.expect("secretKeyRef" in o.env.get("DATABASE_URL", {}).get("valueFrom", {}), "DATABASE_URL is not read from the Secret")


def entra_url_problems(url: str) -> list[str]:
    """What keeps a database URL from an Entra login: a password, no role, weak TLS."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        return ["is not a postgres:// URL"]
    query = parse_qs(parts.query)
    problems = []
    if parts.password or query.get("password"):
        problems.append("holds a password (with posts.auth = entra the password is the identity's token)")
    if not parts.username and not query.get("user"):
        problems.append("names no user (the identity's role)")
    sslmode = query.get("sslmode", ["prefer (the default)"])[-1]
    if sslmode not in ("require", "verify-full"):
        problems.append(f"has sslmode {sslmode}; posts.auth = entra needs require or verify-full")
    return problems


def check_identity(o: Overlay, p: Problems) -> None:
    """Keyless on Azure: Entra logins to PostgreSQL; Workload Identity where the overlay is for it."""
    if o.setting("posts", "auth") == "entra":
        auth = o.setting("azure_openai", "auth")
        p.expect(auth != "api-key", "posts.auth is entra but azure_openai.auth is api-key: no identity takes the database's tokens")
        for where, url in o.set_at(DATABASE_URL_VARS):
            for problem in entra_url_problems(url) if url is not None else []:
                p.append(f"DATABASE_URL in {where} {problem}")
    if o.identity != "workload-identity":
        return
    auth = o.setting("azure_openai", "auth")
    p.expect(auth == "workload-identity", f"azure_openai.auth is {auth!r}, not 'workload-identity'")
    if o.backend == "postgres":
        posts_auth = o.setting("posts", "auth")
        p.expect(posts_auth == "entra", f"posts.auth is {posts_auth!r}, not 'entra': the database would want a password")
    for where, _ in o.set_at(API_KEY_VARS):
        p.append(f"an Azure OpenAI API key is set ({where}): workload identity needs none")
    labels = o.deployment["spec"]["template"].get("metadata", {}).get("labels") or {}
    use = labels.get(WORKLOAD_IDENTITY_LABEL)
    p.expect(use == "true", f"the pod template's label {WORKLOAD_IDENTITY_LABEL} is {use!r}, not 'true': the webhook leaves the pods without the identity")
    name = o.pod.get("serviceAccountName", "default")
    accounts = {a["metadata"]["name"]: a for a in o.by_kind.get("ServiceAccount", [])}
    if name not in accounts:
        p.append(f"the pods' ServiceAccount {name} is not in the overlay (nor its {CLIENT_ID_ANNOTATION} annotation)")
    else:
        annotations = accounts[name]["metadata"].get("annotations") or {}
        p.expect(bool(annotations.get(CLIENT_ID_ANNOTATION)), f"the pods' ServiceAccount {name} has no {CLIENT_ID_ANNOTATION} annotation")


def check_ports_and_probes(o: Overlay, p: Problems) -> None:
    """The service's listener, the admin listener, and probes on its routes."""
    http = o.ports.get("http")
    p.expect(http == port_of(o.defaults["server"]["addr"]), f"container port http {http} is not server.addr's")
    admin = o.setting("server", "admin_addr")
    p.expect(bool(admin) and o.ports.get("admin") == port_of(admin), f"container port admin {o.ports.get('admin')} is not server.admin_addr's ({admin!r})")
    p.expect(f"EXPOSE {http}" in (ROOT / "Dockerfile").read_text(), "the Dockerfile exposes another port than the container's http")
    served = routes()
    for probe, path in (("startupProbe", "/healthz"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = o.container.get(probe, {}).get("httpGet", {})
        p.expect(get.get("path") == path and path in served, f"{probe} asks {get.get('path')}, expected {path} (served: {sorted(served)})")
        p.expect(get.get("port") in ("http", http), f"{probe} is not on the http port")


def check_shutdown(o: Overlay, p: Problems) -> None:
    """The kubelet's SIGKILL comes after shutdown delay + grace."""
    delay = int(o.setting("server", "shutdown_delay_ms"))
    grace = int(o.setting("server", "shutdown_grace_ms"))
    period = o.pod.get("terminationGracePeriodSeconds", 30) * 1000
    p.expect(period >= delay + grace + 1000, f"terminationGracePeriodSeconds {period // 1000} s < shutdown delay {delay} ms + grace {grace} ms + 1 s")
    p.expect(delay > 0, "server.shutdown_delay_ms is 0: a rolling update would reset connections")


def check_security(o: Overlay, p: Problems) -> None:
    """The image's user, nothing more than it needs, out to what it calls."""
    ctx, cctx = o.pod.get("securityContext", {}), o.container.get("securityContext", {})
    p.expect(ctx.get("runAsNonRoot") is True, "runAsNonRoot is not set")
    p.expect(ctx.get("runAsUser") == image_user(), f"runAsUser {ctx.get('runAsUser')} is not the image's user {image_user()}")
    p.expect(ctx.get("seccompProfile", {}).get("type") == "RuntimeDefault", "seccompProfile is not RuntimeDefault")
    p.expect(cctx.get("readOnlyRootFilesystem") is True, "the root filesystem is writable")
    p.expect(cctx.get("allowPrivilegeEscalation") is False, "privilege escalation is allowed")
    p.expect(cctx.get("capabilities", {}).get("drop") == ["ALL"], "capabilities are not all dropped")
    p.expect(o.pod.get("automountServiceAccountToken") is False, "a service-account token is mounted")
    # Out: DNS and HTTPS (Azure OpenAI, Graph), and PostgreSQL when it is the store.
    (policy,) = o.by_kind["NetworkPolicy"]
    egress = {port["port"] for rule in policy["spec"]["egress"] for port in rule.get("ports", [])}
    needed = {53, 443} | ({5432} if o.backend == "postgres" else set())
    p.expect(needed <= egress, f"egress allows ports {sorted(egress)}, not {sorted(needed)}")


def check_store(o: Overlay, p: Problems) -> None:
    """Several replicas on PostgreSQL; one, on a volume, on SQLite."""
    spec = o.deployment["spec"]
    p.expect(o.setting("posts", "backend") == o.backend, f"posts.backend is not {o.backend}")
    if o.backend == "postgres":
        p.expect(spec["replicas"] >= 2, f"{spec['replicas']} replica(s) on PostgreSQL")
        p.expect(spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0, "a rolling update may take a replica away first")
        (hpa,) = o.by_kind["HorizontalPodAutoscaler"]
        p.expect(hpa["spec"]["minReplicas"] >= 2, "the autoscaler may go below 2 replicas")
        return
    p.expect(spec["replicas"] == 1, f"{spec['replicas']} replicas on one SQLite file")
    p.expect(spec["strategy"]["type"] == "Recreate", "two pods would open the SQLite file during an update")
    p.expect("HorizontalPodAutoscaler" not in o.by_kind, "an autoscaler would start a second pod on the SQLite file")
    db_dir = str(Path("/app") / Path(o.setting("posts", "db_path")).parent)
    mounts = {m["mountPath"]: m["name"] for m in o.container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in o.pod.get("volumes", [])}
    claim = volumes.get(mounts.get(db_dir, ""), {}).get("persistentVolumeClaim", {}).get("claimName")
    claims = {c["metadata"]["name"] for c in o.by_kind.get("PersistentVolumeClaim", [])}
    p.expect(claim in claims, f"{db_dir} (posts.db_path's directory) is not on the PersistentVolumeClaim")


def check_memory(o: Overlay, p: Problems) -> None:
    """The memory budget is the container's limit (one figure, read through the downward API)."""
    limit = o.container.get("resources", {}).get("limits", {}).get("memory")
    p.expect(limit is not None, "the container has no memory limit")
    var = "LINKUP__SERVER__MEMORY_BUDGET_MB"
    field = o.env.get(var, {}).get("valueFrom", {}).get("resourceFieldRef", {})
    p.expect(var not in o.config, f"{var} is set in the ConfigMap: a second figure for the memory limit")
    ok = field.get("resource") == "limits.memory" and field.get("divisor") == "1Mi" and field.get("containerName") == o.container["name"]
    p.expect(ok, f"{var} is not the container's limits.memory in Mi (resourceFieldRef): {field}")


def check_monitoring(o: Overlay, p: Problems) -> None:
    """The ServiceMonitor scrapes /metrics on the admin port; the rules are alerts.yml's."""
    import yaml

    (service,) = o.by_kind["Service"]
    service_ports = {sp["name"]: sp for sp in service["spec"]["ports"]}
    (monitor,) = o.by_kind["ServiceMonitor"]
    for endpoint in monitor["spec"]["endpoints"]:
        target = service_ports.get(endpoint["port"], {}).get("targetPort")
        on_admin = target in ("admin", o.ports.get("admin"))
        p.expect(on_admin and endpoint.get("path", "/metrics") == "/metrics", f"the ServiceMonitor scrapes {endpoint}, not /metrics on the admin port")
    labels = service["metadata"].get("labels", {})
    p.expect(all(labels.get(k) == v for k, v in monitor["spec"]["selector"]["matchLabels"].items()), "the ServiceMonitor selects no Service")
    (rule,) = o.by_kind["PrometheusRule"]
    p.expect(rule["spec"] == yaml.safe_load(ALERTS.read_text()), "the PrometheusRule's rules are not deploy/alerts.yml's")


CHECKS = (check_env, check_ports_and_probes, check_shutdown, check_security, check_store, check_memory, check_monitoring, check_identity)


def check_overlay(name: str, backend: str, objects: list[dict], identity: str = "secrets") -> list[str]:
    """Where one rendered overlay disagrees with the service."""
    overlay, p = Overlay(backend, objects, identity), Problems()
    for check_one in CHECKS:
        check_one(overlay, p)
    return [f"{name}: {problem}" for problem in p]


def check() -> int:
    import kubernetes_validate
    import yaml

    problems = []
    if RULE.read_text() != prometheus_rule():
        problems.append(f"{RULE.relative_to(ROOT)} is not what deploy/alerts.yml generates: run `python3 scripts/manifests.py generate`")
    for name, (backend, identity) in OVERLAYS.items():
        rendered = subprocess.run(["kubectl", "kustomize", str(KUBE / name)], check=True, capture_output=True, text=True).stdout
        objects = [o for o in yaml.safe_load_all(rendered) if o]
        for o in objects:
            what = f"{name}: {o['kind']} {o['metadata']['name']}"
            if o["kind"] in CUSTOM_KINDS:
                print(f"{what}: no schema here (Prometheus Operator CRD); content checked below")
                continue
            try:
                kubernetes_validate.validate(o, KUBERNETES_VERSION, strict=True)
            except kubernetes_validate.ValidationError as e:
                problems.append(f"{what}: {e.message} at {'.'.join(map(str, e.path))}")
        problems += check_overlay(name, backend, objects, identity)
        print(f"{name}: {len(objects)} objects rendered and validated against Kubernetes {KUBERNETES_VERSION}")
    for problem in problems:
        print(f"FAIL {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "generate":
        generate()
    elif command == "check":
        sys.exit(check())
    else:
        sys.exit(__doc__)
