"""The manifests' drift check fails when the manifests and the service disagree.

Run by .ci/run: `python -m unittest scripts/test_manifests.py` (with
scripts/requirements-ci.txt installed; kubectl renders the overlays).
"""

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


class DriftCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = rendered("base")
        cls.sqlite = rendered("overlays/sqlite")

    def problems(self, objects, backend="postgres"):
        return "\n".join(k8s.check_overlay("x", backend, objects))

    def test_the_manifests_agree_with_the_service(self):
        self.assertEqual(self.problems(self.base), "")
        self.assertEqual(self.problems(self.sqlite, "sqlite"), "")

    def test_each_disagreement_is_named(self):
        def pod(o):
            return the(o, "Deployment")["spec"]["template"]["spec"]

        def config(o):
            return the(o, "ConfigMap")["data"]

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
        ]
        for what, backend, change, said in cases:
            with self.subTest(what):
                objects = copy.deepcopy(self.base if backend == "postgres" else self.sqlite)
                change(objects)
                self.assertIn(said, self.problems(objects, backend))


if __name__ == "__main__":
    unittest.main()
