#!/usr/bin/env bash
# Checks deploy/cluster/ without a container engine or a Kubernetes cluster:
#   - every YAML file parses (python3's yaml module), and the compose file and
#     the manifests say what docs/CLUSTER.md says they do;
#   - haproxy.cfg passes `haproxy -c` and names the compose file's nodes;
#   - `kubectl kustomize` builds k8s/, and `docker compose config` accepts
#     compose.yaml, where those tools are installed.
# A tool that is missing is skipped with a message; any failure exits 1.
#
#   bash deploy/cluster/check.sh
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
failed=0
ok() { echo "ok    $*"; }
skip() { echo "skip  $*"; }
fail() { echo "FAIL  $*"; failed=1; }

if command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null; then
  if out="$(python3 - "$here" <<'EOF' 2>&1
import glob, os, re, sys, yaml

here = sys.argv[1]
problems = []
def need(cond, what):
    if not cond:
        problems.append(what)

docs = {}
for path in [os.path.join(here, "compose.yaml")] + sorted(glob.glob(os.path.join(here, "k8s", "*.yaml"))):
    try:
        with open(path) as f:
            docs[os.path.relpath(path, here)] = [d for d in yaml.safe_load_all(f) if d is not None]
    except (OSError, yaml.YAMLError) as e:
        sys.exit(f"{os.path.relpath(path, here)}: {e}")

def check():
    # compose.yaml
    services = docs["compose.yaml"][0]["services"]
    nodes = sorted(name for name, s in services.items() if "INAROW_NODE_ID" in s.get("environment", {}))
    need(len(nodes) == 3, f"compose: 3 nodes, found {nodes}")
    ids = [services[n]["environment"]["INAROW_NODE_ID"] for n in nodes]
    need(len(set(ids)) == len(ids), f"compose: node ids not distinct: {ids}")
    for n in nodes:
        s, env = services[n], services[n]["environment"]
        need(s["build"]["context"] == "../.." and s["build"]["dockerfile"] == "deploy/Dockerfile",
             f"compose: {n} is not built from deploy/Dockerfile at the repository's root")
        need(re.fullmatch(r"postgresql://[^:@/]+@[^/]+/\w+", env["INAROW_STORE"]) is not None,
             f"compose: {n}'s INAROW_STORE must be postgresql://USER@HOST/DB, no password in it")
        need(env["INAROW_REDIS"].startswith("redis://"), f"compose: {n}'s INAROW_REDIS")
        need("/healthz" in " ".join(s["healthcheck"]["test"]), f"compose: {n}'s healthcheck is not /healthz")
        need(set(s["depends_on"]) == {"postgres", "redis"} and
             all(d["condition"] == "service_healthy" for d in s["depends_on"].values()),
             f"compose: {n} must wait for a healthy postgres and redis")
        need("command" not in s, f"compose: {n} has a command line (secrets belong in the environment)")
    published = sorted(name for name, s in services.items() if s.get("ports"))
    need(published == ["haproxy"], f"compose: only haproxy publishes a port, found {published}")
    for name in ("postgres", "redis", "haproxy"):
        need(services[name]["image"].endswith("-bookworm"), f"compose: {name}'s image is not a bookworm tag")
    need("postgres-data" in docs["compose.yaml"][0].get("volumes", {}), "compose: no postgres-data volume")

    # haproxy.cfg serves exactly the compose file's nodes
    with open(os.path.join(here, "haproxy.cfg")) as f:
        servers = sorted(re.findall(r"^\s*server\s+\S+\s+([\w-]+):8080", f.read(), re.M))
    need(servers == nodes, f"haproxy.cfg: servers {servers}, compose nodes {nodes}")

    # k8s/
    kust = docs["k8s/kustomization.yaml"][0]
    for r in kust["resources"]:
        need(os.path.exists(os.path.join(here, "k8s", r)), f"k8s: {r} is listed but missing")
    listed = {"k8s/" + r for r in kust["resources"]} | {"k8s/kustomization.yaml"}
    need(listed == {k for k in docs if k.startswith("k8s/")}, "k8s: a manifest not in kustomization.yaml")
    objects = [d for k, ds in docs.items() if k.startswith("k8s/") and k != "k8s/kustomization.yaml" for d in ds]
    for d in objects:
        need(d.get("apiVersion") and d.get("kind") and d.get("metadata", {}).get("name"),
             f"k8s: an object without apiVersion, kind or name: {str(d)[:60]}")
    kinds = {(d["kind"], d["metadata"]["name"]) for d in objects}
    for want in [("Deployment", "inarow"), ("Service", "inarow"), ("StatefulSet", "postgres"),
                 ("Service", "postgres"), ("StatefulSet", "redis"), ("Service", "redis"),
                 ("Secret", "inarow-secrets")]:
        need(want in kinds, f"k8s: no {want[0]} {want[1]}")
    for d in objects:
        if d["kind"] == "Service" and d["metadata"]["name"] in ("postgres", "redis"):
            need(d["spec"].get("clusterIP") == "None", f"k8s: Service {d['metadata']['name']} is not headless")
        if d["kind"] == "StatefulSet" and d["metadata"]["name"] == "postgres":
            need(d["spec"].get("volumeClaimTemplates"), "k8s: postgres has no volume claim")
        if d["kind"] == "Deployment":
            pod = d["spec"]["template"]["spec"]
            c = pod["containers"][0]
            need(d["spec"]["replicas"] == 3, "k8s: the Deployment's replicas")
            need(c["readinessProbe"]["httpGet"]["path"] == "/healthz", "k8s: readinessProbe is not /healthz")
            need("livenessProbe" in c, "k8s: no livenessProbe")
            need(pod.get("terminationGracePeriodSeconds", 30) >= 30, "k8s: terminationGracePeriodSeconds")
            need("resources" in c, "k8s: no resources")
            env = {e["name"]: e for e in c["env"]}
            need(env["INAROW_NODE_ID"].get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.name",
                 "k8s: INAROW_NODE_ID is not the pod's name")
            need(re.fullmatch(r"postgresql://[^:@/]+@[^/]+/\w+", env["INAROW_STORE"]["value"]) is not None,
                 "k8s: INAROW_STORE must carry no password")
            need(list(env).index("REDIS_PASSWORD") < list(env).index("INAROW_REDIS"),
                 "k8s: REDIS_PASSWORD must come before INAROW_REDIS, which uses it")
            need("args" not in c and "command" not in c, "k8s: the node has a command line")

try:
    check()
except (KeyError, IndexError, TypeError, AttributeError, ValueError) as e:
    problems.append(f"a field is missing or malformed: {type(e).__name__} {e}")
print("\n".join(problems) if problems else
      f"{sum(len(v) for v in docs.values())} YAML documents in {len(docs)} files parse and say what they should")
sys.exit(1 if problems else 0)
EOF
)"; then ok "$out"; else fail "$out"; fi
else
  skip "YAML: python3 with the yaml module is not installed (apt-get install python3-yaml)"
fi

if command -v haproxy >/dev/null; then
  # The nodes' names resolve only on the compose network; haproxy.cfg's
  # init-addr lets the check (and a start before the nodes) go without them.
  if out="$(haproxy -c -f "$here/haproxy.cfg" 2>&1)"; then
    ok "haproxy -c ($(haproxy -v | head -1 | awk '{print $3}')): $(tail -1 <<<"$out")"
  else
    fail "haproxy -c:"$'\n'"$out"
  fi
else
  skip "haproxy.cfg: haproxy is not installed (apt-get install haproxy)"
fi

if command -v kubectl >/dev/null; then
  if out="$(kubectl kustomize "$here/k8s" 2>&1)"; then
    ok "kubectl kustomize k8s: $(grep -c '^kind:' <<<"$out") objects"
  else
    fail "kubectl kustomize k8s:"$'\n'"$out"
  fi
else
  skip "k8s: kubectl is not installed"
fi

if docker compose version >/dev/null 2>&1; then
  # Stand-in passwords: only for the file's syntax, nothing is started.
  if out="$(POSTGRES_PASSWORD=check REDIS_PASSWORD=check \
            docker compose -f "$here/compose.yaml" config --quiet 2>&1)"; then
    ok "docker compose config"
  else
    fail "docker compose config:"$'\n'"$out"
  fi
else
  skip "compose.yaml: docker compose is not installed (the YAML checks above still ran)"
fi

exit "$failed"
