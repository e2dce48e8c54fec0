"""The manifests' drift check fails when the manifests and the service disagree.

Run by .ci/run: `python -m unittest scripts/test_manifests.py` (with
scripts/requirements-ci.txt installed; kubectl renders the overlays).
"""

import base64
import copy
import subprocess
import unittest

import yaml

import manifests as k8s


def rendered(overlay: str) -> list[dict]:
    out = subprocess.run(["kubectl", "kustomize", str(k8s.KUBE / overlay)], check=True, capture_output=True, text=True)
    return [o for o in yaml.safe_load_all(out.stdout) if o]


def the(objects: list[dict], kind: str) -> dict:
    (o,) = [o for o in objects if o["kind"] == kind]
    return o


def container(objects: list[dict]) -> dict:
    return the(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]


# A DATABASE_URL for an Entra login: the identity's role, no password, TLS required.
ENTRA_URL = "postgres://linkup-suggestions@db.postgres.database.azure.com:5432/linkup?sslmode=require"


def secret(**data: str) -> dict:
    """A rendered Secret `linkup-suggestions` holding these keys (base64, as in data)."""
    encoded = {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "linkup-suggestions"}, "data": encoded}


def env_value(objects: list[dict], name: str, value: str) -> None:
    """The container's env `name` as a literal value (replacing any entry of that name)."""
    env = container(objects)["env"]
    env[:] = [e for e in env if e["name"] != name] + [{"name": name, "value": value}]


class DriftCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = rendered("base")
        cls.sqlite = rendered("overlays/sqlite")
        cls.keyless = rendered("overlays/azure-workload-identity")
        # The overlays the cases below name: rendering, backend, identity.
        cls.overlays = {
            "postgres": (cls.base, "postgres", "secrets"),
            "sqlite": (cls.sqlite, "sqlite", "secrets"),
            "keyless": (cls.keyless, "postgres", "workload-identity"),
        }

    def problems(self, objects, backend="postgres", identity="secrets"):
        return "\n".join(k8s.check_overlay("x", backend, objects, identity))

    def test_the_manifests_agree_with_the_service(self):
        self.assertEqual(self.problems(self.base), "")
        self.assertEqual(self.problems(self.sqlite, "sqlite"), "")
        self.assertEqual(self.problems(self.keyless, "postgres", "workload-identity"), "")

    def test_the_keyless_overlay_is_checked_for_workload_identity(self):
        self.assertEqual(k8s.OVERLAYS["overlays/azure-workload-identity"], ("postgres", "workload-identity"))

    def test_keyless_accepts_a_passwordless_url_and_the_webhooks_variables(self):
        objects = copy.deepcopy(self.keyless)
        objects.append(secret(DATABASE_URL=ENTRA_URL.replace("require", "verify-full"), LINKUP__SERVER__API_KEYS="a,b"))
        for name in ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_FEDERATED_TOKEN_FILE", "AZURE_AUTHORITY_HOST"):
            env_value(objects, name, "x")
        self.assertEqual(self.problems(objects, "postgres", "workload-identity"), "")

    def test_keyless_is_the_base_with_workload_identity(self):
        """The overlay changes only what workload identity needs: the base's replicas and Secret stay."""
        deployment = the(self.keyless, "Deployment")
        self.assertEqual(deployment["spec"]["replicas"], the(self.base, "Deployment")["spec"]["replicas"])
        self.assertNotIn(k8s.WORKLOAD_IDENTITY_LABEL, deployment["spec"]["selector"]["matchLabels"])
        env = {e["name"]: e for e in container(self.keyless)["env"]}
        self.assertNotIn("AZURE_OPENAI_API_KEY", env)
        self.assertEqual(env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"], "linkup-suggestions")

    def test_each_disagreement_is_named(self):
        def pod(o):
            return the(o, "Deployment")["spec"]["template"]["spec"]

        def config(o):
            return the(o, "ConfigMap")["data"]

        def template_labels(o):
            return the(o, "Deployment")["spec"]["template"]["metadata"]["labels"]

        def annotations(o):
            return the(o, "ServiceAccount")["metadata"]["annotations"]

        cases = [
            # (what changes, on which overlay, how, what the check says)
            ("a grace period shorter than delay + grace", "postgres",
             lambda o: pod(o).update(terminationGracePeriodSeconds=40),
             "terminationGracePeriodSeconds 40 s < shutdown delay"),
            ("a variable the service does not read", "postgres",
             lambda o: config(o).update(LINKUP__SERVER__SHUTDOWN_DELAY="10000"),
             "LINKUP__SERVER__SHUTDOWN_DELAY is not one the service reads"),
            ("a probe on a path the service does not serve", "postgres",
             lambda o: container(o)["readinessProbe"]["httpGet"].update(path="/ready"),
             "readinessProbe asks /ready"),
            ("an admin port that is not the admin listener's", "postgres",
             lambda o: config(o).update(LINKUP__SERVER__ADMIN_ADDR="0.0.0.0:9100"),
             "container port admin 9090 is not server.admin_addr's"),
            ("another user than the image's", "postgres",
             lambda o: pod(o)["securityContext"].update(runAsUser=1000),
             "runAsUser 1000 is not the image's user 10001"),
            ("a memory budget apart from the memory limit", "postgres",
             lambda o: config(o).update(LINKUP__SERVER__MEMORY_BUDGET_MB="1024"),
             "LINKUP__SERVER__MEMORY_BUDGET_MB is set in the ConfigMap"),
            ("a memory budget not read from the limit", "postgres",
             lambda o: container(o)["env"].__setitem__(
                 next(i for i, e in enumerate(container(o)["env"]) if e["name"] == "LINKUP__SERVER__MEMORY_BUDGET_MB"),
                 {"name": "LINKUP__SERVER__MEMORY_BUDGET_MB", "value": "2048"}),
             "LINKUP__SERVER__MEMORY_BUDGET_MB is not the container's limits.memory"),
            ("a secret in the ConfigMap", "postgres",
             lambda o: config(o).update(AZURE_OPENAI_API_KEY="k"),
             "AZURE_OPENAI_API_KEY is in the ConfigMap"),
            ("alert rules that are not alerts.yml's", "postgres",
             lambda o: the(o, "PrometheusRule")["spec"]["groups"][0]["rules"][0].update({"for": "1m"}),
             "not deploy/alerts.yml's"),
            ("two replicas on one SQLite file", "sqlite",
             lambda o: the(o, "Deployment")["spec"].update(replicas=2),
             "2 replicas on one SQLite file"),
            ("an Entra login with an API key for Azure OpenAI", "postgres",
             lambda o: config(o).update(LINKUP__POSTS__AUTH="entra", LINKUP__AZURE_OPENAI__AUTH="api-key"),
             "posts.auth is entra but azure_openai.auth is api-key"),
            ("an Entra login whose URL holds a password", "postgres",
             lambda o: (config(o).update(LINKUP__POSTS__AUTH="entra"),
                        o.append(secret(DATABASE_URL="postgres://linkup:pw@db:5432/linkup?sslmode=require"))),
             "DATABASE_URL in Secret linkup-suggestions holds a password"),
            # Workload identity (overlays/azure-workload-identity).
            ("no client id on the ServiceAccount", "keyless",
             lambda o: annotations(o).pop(k8s.CLIENT_ID_ANNOTATION),
             "the pods' ServiceAccount linkup-suggestions has no azure.workload.identity/client-id annotation"),
            ("pods on another ServiceAccount", "keyless",
             lambda o: pod(o).update(serviceAccountName="default"),
             "the pods' ServiceAccount default is not in the overlay"),
            ("pods without the webhook's label", "keyless",
             lambda o: template_labels(o).pop(k8s.WORKLOAD_IDENTITY_LABEL),
             "the pod template's label azure.workload.identity/use is None"),
            ("the webhook's label not \"true\"", "keyless",
             lambda o: template_labels(o).update({k8s.WORKLOAD_IDENTITY_LABEL: "false"}),
             "the pod template's label azure.workload.identity/use is 'false'"),
            ("Azure OpenAI on an API key", "keyless",
             lambda o: config(o).update(LINKUP__AZURE_OPENAI__AUTH="api-key"),
             "azure_openai.auth is 'api-key', not 'workload-identity'"),
            ("Azure OpenAI's auth left at its default", "keyless",
             lambda o: config(o).pop("LINKUP__AZURE_OPENAI__AUTH"),
             "azure_openai.auth is 'auto', not 'workload-identity'"),
            ("the API key read from the Secret again", "keyless",
             lambda o: container(o)["env"].append({"name": "AZURE_OPENAI_API_KEY", "valueFrom": {"secretKeyRef": {
                 "name": "linkup-suggestions", "key": "AZURE_OPENAI_API_KEY", "optional": True}}}),
             "an Azure OpenAI API key is set (env AZURE_OPENAI_API_KEY (from linkup-suggestions key AZURE_OPENAI_API_KEY))"),
            ("the API key under its settings name in the ConfigMap", "keyless",
             lambda o: config(o).update(LINKUP__AZURE_OPENAI__API_KEY="k"),
             "an Azure OpenAI API key is set (ConfigMap"),
            ("the API key in a Secret", "keyless",
             lambda o: o.append(secret(DATABASE_URL=ENTRA_URL, AZURE_OPENAI_API_KEY="k")),
             "an Azure OpenAI API key is set (Secret linkup-suggestions)"),
            ("the database on a password", "keyless",
             lambda o: config(o).update(LINKUP__POSTS__AUTH="password"),
             "posts.auth is 'password', not 'entra'"),
            ("a password in DATABASE_URL", "keyless",
             lambda o: o.append(secret(DATABASE_URL=ENTRA_URL.replace("linkup-suggestions@", "linkup-suggestions:pw@"))),
             "DATABASE_URL in Secret linkup-suggestions holds a password"),
            ("a password in DATABASE_URL's query", "keyless",
             lambda o: env_value(o, "DATABASE_URL", ENTRA_URL + "&password=pw"),
             "DATABASE_URL in env DATABASE_URL holds a password"),
            ("no role in DATABASE_URL", "keyless",
             lambda o: o.append(secret(DATABASE_URL=ENTRA_URL.replace("linkup-suggestions@", ""))),
             "DATABASE_URL in Secret linkup-suggestions names no user"),
            ("TLS only when the server offers it", "keyless",
             lambda o: env_value(o, "DATABASE_URL", ENTRA_URL.replace("sslmode=require", "sslmode=prefer")),
             "DATABASE_URL in env DATABASE_URL has sslmode prefer;"),
            ("no sslmode in DATABASE_URL", "keyless",
             lambda o: config(o).update(LINKUP__POSTS__DATABASE_URL=ENTRA_URL.split("?")[0]),
             "has sslmode prefer (the default); posts.auth = entra needs require or verify-full"),
        ]
        for what, overlay, change, said in cases:
            with self.subTest(what):
                objects, backend, identity = self.overlays[overlay]
                objects = copy.deepcopy(objects)
                change(objects)
                self.assertIn(said, self.problems(objects, backend, identity))


if __name__ == "__main__":
    unittest.main()
