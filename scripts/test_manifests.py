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

    def changed(self, objects, change):
        objects = copy.deepcopy(objects)
        change(objects)
        return objects

    def test_the_manifests_agree_with_the_service(self):
        self.assertEqual(self.problems(self.base), "")
        self.assertEqual(self.problems(self.sqlite, "sqlite"), "")

    def test_a_grace_period_shorter_than_delay_plus_grace(self):
        def shorten(o):
            the(o, "Deployment")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 40
        self.assertIn("terminationGracePeriodSeconds 40 s < shutdown delay", self.problems(self.changed(self.base, shorten)))

    def test_an_environment_variable_the_service_does_not_read(self):
        def misspell(o):
            the(o, "ConfigMap")["data"]["LINKUP__SERVER__SHUTDOWN_DELAY"] = "10000"
        self.assertIn("LINKUP__SERVER__SHUTDOWN_DELAY is not one the service reads", self.problems(self.changed(self.base, misspell)))

    def test_a_probe_on_a_path_the_service_does_not_serve(self):
        def move(o):
            container(o)["readinessProbe"]["httpGet"]["path"] = "/ready"
        self.assertIn("readinessProbe asks /ready", self.problems(self.changed(self.base, move)))

    def test_an_admin_port_that_is_not_the_admin_listeners(self):
        def move(o):
            the(o, "ConfigMap")["data"]["LINKUP__SERVER__ADMIN_ADDR"] = "0.0.0.0:9100"
        self.assertIn("container port admin 9090 is not server.admin_addr's", self.problems(self.changed(self.base, move)))

    def test_another_user_than_the_images(self):
        def other(o):
            the(o, "Deployment")["spec"]["template"]["spec"]["securityContext"]["runAsUser"] = 1000
        self.assertIn("runAsUser 1000 is not the image's user 10001", self.problems(self.changed(self.base, other)))

    def test_a_secret_in_the_config_map(self):
        def leak(o):
            the(o, "ConfigMap")["data"]["AZURE_OPENAI_API_KEY"] = "k"
        self.assertIn("AZURE_OPENAI_API_KEY is in the ConfigMap", self.problems(self.changed(self.base, leak)))

    def test_two_replicas_on_one_sqlite_file(self):
        def scale(o):
            the(o, "Deployment")["spec"]["replicas"] = 2
        self.assertIn("2 replicas on one SQLite file", self.problems(self.changed(self.sqlite, scale), "sqlite"))

    def test_alert_rules_that_are_not_alerts_yml(self):
        def edit(o):
            the(o, "PrometheusRule")["spec"]["groups"][0]["rules"][0]["for"] = "1m"
        self.assertIn("not deploy/alerts.yml's", self.problems(self.changed(self.base, edit)))


if __name__ == "__main__":
    unittest.main()
