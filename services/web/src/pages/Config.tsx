/** Configuration: prices, contracts, milestone sets, baselines and scoring settings, each row editable and deletable; the API's validation errors on the field they concern. */
import { ConfigResource, type ResourceSpec } from "../config/ConfigResource.tsx";
import { ScoringSettings } from "../config/ScoringSettings.tsx";
import { useTitle } from "../router.tsx";

const service = { key: "serviceName", label: "Service", kind: "optionalText", hint: "blank = every service" } as const;
const str = (v: unknown) => (v === null || v === undefined ? "*" : String(v));

const resources: ResourceSpec[] = [
  {
    path: "/prices",
    title: "Prices",
    noun: "price",
    columns: ["model", "inputPerMTok", "outputPerMTok", "cachedInputPerMTok", "source"],
    fields: [
      { key: "model", label: "Model", kind: "text" },
      { key: "inputPerMTok", label: "Input $/MTok", kind: "number" },
      { key: "outputPerMTok", label: "Output $/MTok", kind: "number" },
      { key: "cachedInputPerMTok", label: "Cached input $/MTok", kind: "optionalNumber" },
    ],
    // Seeded defaults have no id: a price with the same model id replaces one.
    editable: (row) => row.source === "project",
    rowName: (row) => str(row.model),
  },
  {
    path: "/agent-contracts",
    title: "Agent contracts",
    noun: "agent contract",
    columns: ["serviceName", "agent", "role", "isVerifier", "allowedTools", "forbiddenTools", "completionCondition"],
    fields: [
      service,
      { key: "agent", label: "Agent", kind: "text", hint: '"*" for any agent' },
      { key: "role", label: "Role", kind: "text" },
      { key: "allowedTools", label: "Allowed tools", kind: "list", hint: "comma-separated; blank = any" },
      { key: "forbiddenTools", label: "Forbidden tools", kind: "list", hint: "comma-separated" },
      { key: "isVerifier", label: "Verifier", kind: "boolean" },
      { key: "completionCondition", label: "Completion condition", kind: "optionalText", hint: "JSONata over the trace view" },
    ],
    rowName: (row) => `${str(row.serviceName)}/${str(row.agent)}`,
  },
  {
    path: "/handoff-contracts",
    title: "Handoff contracts",
    noun: "handoff contract",
    columns: ["serviceName", "sender", "receiver", "requiredConstraints", "jsonSchema"],
    fields: [
      service,
      { key: "sender", label: "Sender", kind: "text" },
      { key: "receiver", label: "Receiver", kind: "text" },
      { key: "requiredConstraints", label: "Required constraints", kind: "list", hint: "comma-separated" },
      { key: "jsonSchema", label: "JSON Schema of the payload", kind: "json", hint: "blank = none" },
    ],
    rowName: (row) => `${str(row.sender)} to ${str(row.receiver)}`,
  },
  {
    path: "/milestone-sets",
    title: "Milestone sets",
    noun: "milestone set",
    columns: ["serviceName", "name", "milestones"],
    fields: [
      service,
      { key: "name", label: "Name", kind: "text" },
      { key: "milestones", label: "Milestones", kind: "json", hint: '[{ "id": "...", "weight": 1, "check": "JSONata", "requires": [], "required": false }]' },
    ],
    rowName: (row) => str(row.name),
  },
  {
    path: "/baselines",
    title: "Baselines",
    noun: "baseline",
    columns: ["serviceName", "taskId", "tokens", "costUsd"],
    fields: [
      service,
      { key: "taskId", label: "Task", kind: "optionalText", hint: "a task, a service, or both" },
      { key: "tokens", label: "Tokens", kind: "optionalNumber" },
      { key: "costUsd", label: "Cost (USD)", kind: "optionalNumber", hint: "tokens, cost, or both" },
    ],
    rowName: (row) => `${str(row.serviceName)}/${str(row.taskId)}`,
  },
];

export default function ConfigPage() {
  useTitle("Configuration");
  return (
    <div className="page">
      <h1>Configuration</h1>
      <p className="muted">Changes apply to runs scored afterwards.</p>
      {resources.map((r) => (
        <ConfigResource key={r.path} spec={r} />
      ))}
      <section aria-label="Scoring settings">
        <h2>Scoring settings</h2>
        <ScoringSettings />
      </section>
    </div>
  );
}
