// SPDX-License-Identifier: GPL-2.0-only
// validate.mjs FILE... [--expect-invalid FILE...]: each YAML document of
// each FILE checked against the Kubernetes API's schema by the npm package
// kubernetes-models (its validators are compiled from the API's OpenAPI
// definitions: types, required fields, enums, formats; like the API
// server's non-strict decoding it lets a field it does not know pass),
// then against what every jr2 pod keeps (no ServiceAccount token, /run in
// memory, the trust bundle under /opt/jr2; a Harness pod is one labelled
// jr2.dev/promises) and, for a pod template labelled
// jr2.dev/pod-security: restricted, Kubernetes' restricted Pod Security
// Standard.  The files after --expect-invalid must be refused
// (the checks' negative controls).  TAP on stdout, one test per document;
// exit 1 when one is not as expected.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { ConfigMap, Pod } from "kubernetes-models/v1";
import { DaemonSet } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";

const models = {
  "v1/Pod": Pod, "v1/ConfigMap": ConfigMap,
  "apps/v1/DaemonSet": DaemonSet, "batch/v1/Job": Job,
};
const args = process.argv.slice(2);
const cut = args.indexOf("--expect-invalid");
const files = (cut < 0 ? args : args.slice(0, cut)).map((f) => [f, false])
  .concat(cut < 0 ? [] : args.slice(cut + 1).map((f) => [f, true]));
if (files.length === 0) {
  console.error("validate.mjs: no file: give the manifests to check (examples/kubernetes/*.yaml)");
  process.exit(2);
}

// What jr2 asks of a pod spec beyond the schema; the first problem, or "".
function jr2Problem(spec, level, restricted) {
  if (spec.automountServiceAccountToken !== false)
    return "automountServiceAccountToken is not false: a program could read the pod's API token";
  const containers = spec.containers ?? [];
  const harness = containers.find((c) => (c.image ?? "").startsWith("jr2-harness")) ?? {};
  const run = (harness.volumeMounts ?? []).find((m) => m.mountPath === "/run");
  if (level && !run) return "no volume on /run: the protected dir /run/jr2 would be on the node's disk";
  const vol = run && (spec.volumes ?? []).find((v) => v.name === run.name);
  if (run && vol?.emptyDir?.medium !== "Memory")
    return `/run's volume '${run.name}' is not an emptyDir of medium Memory`;
  for (const e of harness.env ?? [])
    if (/CA_BUNDLE|CERT|CAINFO/.test(e.name) && !String(e.value).startsWith("/opt/jr2/"))
      return `${e.name}=${e.value}: a trust bundle outside /opt/jr2 freezes its folder (/etc: useradd, sed -i stop)`;
  if (restricted) {
    const pod = spec.securityContext ?? {};
    for (const c of [...(spec.initContainers ?? []), ...containers]) {
      const sc = c.securityContext ?? {};
      if (!(sc.runAsNonRoot ?? pod.runAsNonRoot)) return `${c.name}: runAsNonRoot is not true`;
      if (sc.allowPrivilegeEscalation !== false) return `${c.name}: allowPrivilegeEscalation is not false`;
      if (!(sc.capabilities?.drop ?? []).includes("ALL")) return `${c.name}: capabilities do not drop ALL`;
      const seccomp = (sc.seccompProfile ?? pod.seccompProfile)?.type;
      if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost")
        return `${c.name}: seccompProfile is ${seccomp}, not RuntimeDefault`;
    }
  }
  return "";
}

const results = [];
for (const [file, negative] of files) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  docs.forEach((doc, i) => {
    const name = `${file}#${i + 1}`;
    if (doc.errors.length) {
      results.push([name, false, `YAML: ${doc.errors[0].message}`, negative]);
      return;
    }
    const data = doc.toJS();
    const model = models[`${data?.apiVersion}/${data?.kind}`];
    if (!model) {
      results.push([name, false, `no schema here for ${data?.apiVersion} ${data?.kind}: add it to validate.mjs`, negative]);
      return;
    }
    const what = `${data.kind} ${data.metadata?.name}`;
    try {
      new model(data).validate();
    } catch (err) {
      results.push([name, false, `${what}: ${String(err.message).split("\n")[0]}`, negative]);
      return;
    }
    const pod = data.kind === "Pod" ? data : data.spec?.template;
    const labels = pod?.metadata?.labels ?? {};
    const level = labels["jr2.dev/promises"] ?? "";
    const restricted = labels["jr2.dev/pod-security"] === "restricted";
    const problem = pod?.spec ? jr2Problem(pod.spec, level, restricted) : "";
    results.push([name, !problem, problem ? `${what}: ${problem}` : `${what}: valid${level ? `, ${level}` : ""}`, negative]);
  });
}
console.log("TAP version 13");
console.log(`1..${results.length}`);
let bad = 0;
results.forEach(([name, valid, why, negative], i) => {
  const ok = valid !== negative;
  bad += ok ? 0 : 1;
  console.log(`${ok ? "ok" : "not ok"} ${i + 1} ${name}${negative ? " must be refused" : ""} - ${why}`);
});
process.exit(bad ? 1 : 0);
