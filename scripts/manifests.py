#!/usr/bin/env python3
"""The Kubernetes manifests (deploy/kubernetes/), kept in step with the service.

  python3 scripts/manifests.py generate   # base/prometheusrule.yaml from deploy/alerts.yml
  python3 scripts/manifests.py check      # what .ci/run does (needs kubectl, and
                                           # kubernetes-validate: scripts/requirements-ci.txt)

`check` renders every overlay with `kubectl kustomize`, validates each object
against the Kubernetes schemas offline (kubernetes-validate, strict), and
fails when the manifests disagree with the service: probe paths and ports,
the admin port, the environment variables it reads, the termination grace
period against shutdown delay + grace, the image's user, the alert rules.
"""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KUBE = ROOT / "deploy" / "kubernetes"
ALERTS = ROOT / "deploy" / "alerts.yml"
RULE = KUBE / "base" / "prometheusrule.yaml"
# Each overlay and what it must be.
OVERLAYS = {"base": "postgres", "overlays/sqlite": "sqlite"}
# The oldest Kubernetes the manifests are for (matchLabelKeys in topology
# spread: beta and on by default since 1.27).
KUBERNETES_VERSION = "1.30.0"
# Custom resources without a schema here (the Prometheus Operator's CRDs are
# not on a package registry); their content is checked below instead.
CUSTOM_KINDS = {"ServiceMonitor", "PrometheusRule"}
# Variables read outside the settings (src/otel.rs, src/telemetry.rs).
OTHER_ENV = re.compile(r"^(OTEL_[A-Z_]+|RUST_LOG|APP_ENV)$")


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
    source = (ROOT / "src" / "settings" / "mod.rs").read_text()
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


def check_overlay(name: str, backend: str, objects: list[dict]) -> Problems:
    import yaml

    p = Problems()
    by_kind: dict[str, list[dict]] = {}
    for o in objects:
        by_kind.setdefault(o["kind"], []).append(o)
    defaults = tomllib.loads((ROOT / "config" / "default.toml").read_text())
    keys, legacy = settings_keys(), legacy_env()

    (deployment,) = by_kind["Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    config = {}
    for ref in container.get("envFrom", []):
        (cm,) = [c for c in by_kind["ConfigMap"] if c["metadata"]["name"] == ref["configMapRef"]["name"]]
        config.update(cm["data"])
    env = {e["name"]: e for e in container.get("env", [])}
    for var in list(config) + list(env):
        if problem := env_problem(var, keys, legacy):
            p.append(problem)
    for var, e in env.items():
        ref = e.get("valueFrom", {}).get("secretKeyRef")
        p.expect(ref is None or ref["key"] == var, f"{var} comes from the Secret's key {ref and ref['key']}")
    for secret in ("AZURE_OPENAI_API_KEY", "DATABASE_URL", "LINKUP__SERVER__API_KEYS"):
        p.expect(secret not in config, f"{secret} is in the ConfigMap; it belongs in the Secret")
    if backend == "postgres":
        p.expect("secretKeyRef" in env.get("DATABASE_URL", {}).get("valueFrom", {}), "DATABASE_URL is not read from the Secret")

    # Ports: the service's listener and the admin listener.
    ports = {c["name"]: c["containerPort"] for c in container["ports"]}
    p.expect(ports.get("http") == port_of(defaults["server"]["addr"]), f"container port http {ports.get('http')} is not server.addr's")
    admin = config.get("LINKUP__SERVER__ADMIN_ADDR", defaults["server"]["admin_addr"])
    p.expect(bool(admin) and ports.get("admin") == port_of(admin), f"container port admin {ports.get('admin')} is not server.admin_addr's ({admin!r})")
    dockerfile = (ROOT / "Dockerfile").read_text()
    p.expect(f"EXPOSE {ports.get('http')}" in dockerfile, "the Dockerfile exposes another port than the container's http")

    # Probes: the service's routes, on its port.
    served = routes()
    for probe, path in (("startupProbe", "/healthz"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = container.get(probe, {}).get("httpGet", {})
        p.expect(get.get("path") == path and path in served, f"{probe} asks {get.get('path')}, expected {path} (served: {sorted(served)})")
        p.expect(get.get("port") in ("http", ports.get("http")), f"{probe} is not on the http port")

    # Shutdown: the kubelet's SIGKILL comes after delay + grace.
    delay = int(config.get("LINKUP__SERVER__SHUTDOWN_DELAY_MS", defaults["server"]["shutdown_delay_ms"]))
    grace = int(config.get("LINKUP__SERVER__SHUTDOWN_GRACE_MS", defaults["server"]["shutdown_grace_ms"]))
    period = pod.get("terminationGracePeriodSeconds", 30) * 1000
    p.expect(period >= delay + grace + 1000, f"terminationGracePeriodSeconds {period // 1000} s < shutdown delay {delay} ms + grace {grace} ms + 1 s")
    p.expect(delay > 0, "server.shutdown_delay_ms is 0: a rolling update would reset connections")

    # Security: the image's user, nothing more than it needs.
    ctx, cctx = pod.get("securityContext", {}), container.get("securityContext", {})
    p.expect(ctx.get("runAsNonRoot") is True, "runAsNonRoot is not set")
    p.expect(ctx.get("runAsUser") == image_user(), f"runAsUser {ctx.get('runAsUser')} is not the image's user {image_user()}")
    p.expect(ctx.get("seccompProfile", {}).get("type") == "RuntimeDefault", "seccompProfile is not RuntimeDefault")
    p.expect(cctx.get("readOnlyRootFilesystem") is True, "the root filesystem is writable")
    p.expect(cctx.get("allowPrivilegeEscalation") is False, "privilege escalation is allowed")
    p.expect(cctx.get("capabilities", {}).get("drop") == ["ALL"], "capabilities are not all dropped")
    p.expect(pod.get("automountServiceAccountToken") is False, "a service-account token is mounted")

    # Out: DNS and HTTPS (Azure OpenAI, Graph), and PostgreSQL when it is the store.
    egress = {port["port"] for rule in by_kind["NetworkPolicy"][0]["spec"]["egress"] for port in rule.get("ports", [])}
    needed = {53, 443} | ({5432} if backend == "postgres" else set())
    p.expect(needed <= egress, f"egress allows ports {sorted(egress)}, not {sorted(needed)}")

    # The store.
    p.expect(config.get("LINKUP__POSTS__BACKEND", defaults["posts"]["backend"]) == backend, f"posts.backend is not {backend}")
    replicas = deployment["spec"]["replicas"]
    if backend == "postgres":
        p.expect(replicas >= 2, f"{replicas} replica(s) on PostgreSQL")
        p.expect(deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0, "a rolling update may take a replica away first")
        (hpa,) = by_kind["HorizontalPodAutoscaler"]
        p.expect(hpa["spec"]["minReplicas"] >= 2, "the autoscaler may go below 2 replicas")
    else:
        p.expect(replicas == 1, f"{replicas} replicas on one SQLite file")
        p.expect(deployment["spec"]["strategy"]["type"] == "Recreate", "two pods would open the SQLite file during an update")
        p.expect("HorizontalPodAutoscaler" not in by_kind, "an autoscaler would start a second pod on the SQLite file")
        db_dir = str(Path("/app") / Path(config.get("LINKUP__POSTS__DB_PATH", defaults["posts"]["db_path"])).parent)
        mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        claim = volumes.get(mounts.get(db_dir, ""), {}).get("persistentVolumeClaim", {}).get("claimName")
        p.expect(claim in {c["metadata"]["name"] for c in by_kind.get("PersistentVolumeClaim", [])}, f"{db_dir} (posts.db_path's directory) is not on the PersistentVolumeClaim")

    # Monitoring: the ServiceMonitor scrapes the admin port; the rules are alerts.yml's.
    (service,) = by_kind["Service"]
    service_ports = {sp["name"]: sp for sp in service["spec"]["ports"]}
    (monitor,) = by_kind["ServiceMonitor"]
    for endpoint in monitor["spec"]["endpoints"]:
        sp = service_ports.get(endpoint["port"], {})
        p.expect(sp.get("targetPort") in ("admin", ports.get("admin")) and endpoint.get("path", "/metrics") == "/metrics", f"the ServiceMonitor scrapes {endpoint}, not /metrics on the admin port")
    labels = service["metadata"].get("labels", {})
    p.expect(all(labels.get(k) == v for k, v in monitor["spec"]["selector"]["matchLabels"].items()), "the ServiceMonitor selects no Service")
    (rule,) = by_kind["PrometheusRule"]
    p.expect(rule["spec"] == yaml.safe_load(ALERTS.read_text()), "the PrometheusRule's rules are not deploy/alerts.yml's")
    return [f"{name}: {problem}" for problem in p]


def check() -> int:
    import kubernetes_validate
    import yaml

    problems = []
    if RULE.read_text() != prometheus_rule():
        problems.append(f"{RULE.relative_to(ROOT)} is not what deploy/alerts.yml generates: run `python3 scripts/manifests.py generate`")
    for name, backend in OVERLAYS.items():
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
        problems += check_overlay(name, backend, objects)
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
