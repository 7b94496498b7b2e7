/** Alert rules (create, edit, enable, state, last evaluation), their events, and webhooks (create, test, rotate secret shown once, deliveries, retry). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, ApiError } from "../api.ts";
import { formatTime } from "../format.ts";
import { Link, useTitle } from "../router.tsx";
import type { AlertRuleInput, AlertRules, Alerts, Deliveries, WebhookCreated, WebhookInput, Webhooks } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";

const metrics: [string, string][] = [
  ["error_rate", "error rate"],
  ["success_rate", "success rate"],
  ["failure_mode_rate", "failure-mode rate"],
  ["tokens_per_trace", "tokens per run"],
  ["cost_per_trace", "cost per run"],
  ["cost_multiplier", "cost multiplier"],
];

function errorText(e: unknown): string | null {
  return e instanceof ApiError ? `${e.message}` : e ? String(e) : null;
}

export default function AlertsPage() {
  useTitle("Alerts");
  return (
    <div className="page">
      <h1>Alerts</h1>
      <Rules />
      <Events />
      <h1>Webhooks</h1>
      <WebhooksSection />
    </div>
  );
}

const emptyRule = {
  name: "",
  metric: "error_rate",
  mode: "FM-1.3",
  condition: "threshold",
  op: "above",
  value: "0.2",
  direction: "rise",
  by: "0.5",
  windowMinutes: "60",
  minSamples: "10",
};

function Rules() {
  const queryClient = useQueryClient();
  const rules = useQuery({ queryKey: ["alert-rules"], queryFn: () => api<AlertRules>("/alert-rules?limit=500") });
  const [form, setForm] = useState(emptyRule);
  // The rule being edited (its scope, webhooks and enabled flag are kept as they are), or null: a new rule.
  const [editing, setEditing] = useState<AlertRules["items"][number] | null>(null);
  const create = useMutation({
    mutationFn: (body: AlertRuleInput) => api("/alert-rules", { method: "POST", body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["alert-rules"] }),
  });
  const edit = useMutation({
    mutationFn: ({ id, body }: { id: string; body: AlertRuleInput }) => api(`/alert-rules/${id}`, { method: "PUT", body }),
    onSuccess: () => {
      setEditing(null);
      setForm(emptyRule);
      void queryClient.invalidateQueries({ queryKey: ["alert-rules"] });
    },
  });
  const toggle = useMutation({
    mutationFn: ({ id, body }: { id: string; body: AlertRuleInput }) => api(`/alert-rules/${id}`, { method: "PUT", body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["alert-rules"] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const metric = (form.metric === "failure_mode_rate" ? { kind: "failure_mode_rate", mode: form.mode } : { kind: form.metric }) as AlertRuleInput["metric"];
    const body: AlertRuleInput = {
      name: form.name,
      metric,
      condition:
        form.condition === "change"
          ? { kind: "change", direction: form.direction as "rise" | "drop", by: Number(form.by) }
          : { kind: "threshold", op: form.op as "above" | "below", value: Number(form.value) },
      windowMs: Math.round(Number(form.windowMinutes) * 60_000),
      minSamples: Number(form.minSamples),
    };
    if (editing) edit.mutate({ id: editing.id, body: { ...body, enabled: editing.enabled, scope: editing.scope, webhookIds: editing.webhookIds } });
    else create.mutate(body);
  };
  const startEdit = (r: AlertRules["items"][number]) => {
    setEditing(r);
    setForm({
      name: r.name,
      metric: r.metric.kind,
      mode: "mode" in r.metric ? r.metric.mode : emptyRule.mode,
      condition: r.condition.kind,
      op: r.condition.kind === "threshold" ? r.condition.op : emptyRule.op,
      value: r.condition.kind === "threshold" ? String(r.condition.value) : emptyRule.value,
      direction: r.condition.kind === "change" ? r.condition.direction : emptyRule.direction,
      by: r.condition.kind === "change" ? String(r.condition.by) : emptyRule.by,
      windowMinutes: String(r.windowMs / 60_000),
      minSamples: String(r.minSamples),
    });
  };
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  return (
    <section aria-label="Alert rules">
      <h2>Rules</h2>
      {rules.isPending ? (
        <Loading what="alert rules" />
      ) : rules.isError ? (
        <ErrorState error={rules.error} what="alert rules" />
      ) : rules.data.items.length === 0 ? (
        <p className="muted">No alert rule yet.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Metric</th>
              <th scope="col">Condition</th>
              <th scope="col">State</th>
              <th scope="col">Last evaluated</th>
              <th scope="col">Enabled</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.data.items.map((r) => (
              <tr key={r.id} data-rule={r.name}>
                <td>{r.name}</td>
                <td>
                  {r.metric.kind}
                  {"mode" in r.metric ? ` ${r.metric.mode}` : ""}
                </td>
                <td>{r.condition.kind === "threshold" ? `${r.condition.op} ${r.condition.value}` : `${r.condition.direction} by ${r.condition.by}`}</td>
                <td>
                  <span className={`badge ${r.state === "firing" ? "outcome failed" : "outcome success"}`}>{r.state}</span>
                </td>
                <td>{r.lastEvaluatedAt ? formatTime(r.lastEvaluatedAt) : "not yet"}</td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Rule ${r.name} enabled`}
                    checked={r.enabled}
                    onChange={(e) => {
                      const { id: _id, state: _s, createdAt: _c, updatedAt: _u, lastEvaluatedAt: _l, ...body } = r;
                      toggle.mutate({ id: r.id, body: { ...body, enabled: e.target.checked } });
                    }}
                  />
                </td>
                <td>
                  <button type="button" onClick={() => startEdit(r)} aria-label={`Edit rule ${r.name}`}>
                    Edit
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="inline-form" onSubmit={submit} aria-label={editing ? `Edit alert rule ${editing.name}` : "New alert rule"}>
        <h3>{editing ? `Edit rule ${editing.name}` : "New rule"}</h3>
        <label>
          Name
          <input value={form.name} onChange={set("name")} required />
        </label>
        <label>
          Metric
          <select value={form.metric} onChange={set("metric")}>
            {metrics.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        {form.metric === "failure_mode_rate" && (
          <label>
            Mode
            <input value={form.mode} onChange={set("mode")} />
          </label>
        )}
        <label>
          Condition
          <select value={form.condition} onChange={set("condition")}>
            <option value="threshold">threshold</option>
            <option value="change">change against the previous window</option>
          </select>
        </label>
        {form.condition === "threshold" ? (
          <>
            <label>
              When
              <select value={form.op} onChange={set("op")}>
                <option value="above">above</option>
                <option value="below">below</option>
              </select>
            </label>
            <label>
              Value
              <input value={form.value} onChange={set("value")} inputMode="decimal" />
            </label>
          </>
        ) : (
          <>
            <label>
              Direction
              <select value={form.direction} onChange={set("direction")}>
                <option value="rise">rises</option>
                <option value="drop">drops</option>
              </select>
            </label>
            <label>
              By (0.5 = 50%)
              <input value={form.by} onChange={set("by")} inputMode="decimal" />
            </label>
          </>
        )}
        <label>
          Window (minutes)
          <input value={form.windowMinutes} onChange={set("windowMinutes")} inputMode="numeric" />
        </label>
        <label>
          Minimum runs
          <input value={form.minSamples} onChange={set("minSamples")} inputMode="numeric" />
        </label>
        <button type="submit" disabled={create.isPending || edit.isPending}>
          {editing ? "Save rule" : "Create rule"}
        </button>
        {editing && (
          <button
            type="button"
            onClick={() => {
              setEditing(null);
              setForm(emptyRule);
              edit.reset();
            }}
          >
            Cancel
          </button>
        )}
        {(create.isError || edit.isError) && (
          <p className="field-error" role="alert">
            {errorText(editing ? edit.error : create.error)}
          </p>
        )}
        {toggle.isError && (
          <p className="field-error" role="alert">
            {errorText(toggle.error)}
          </p>
        )}
      </form>
    </section>
  );
}

function Events() {
  const events = useQuery({ queryKey: ["alerts"], queryFn: () => api<Alerts>("/alerts?limit=100") });
  return (
    <section aria-label="Alert events">
      <h2>Events</h2>
      {events.isPending ? (
        <Loading what="alert events" />
      ) : events.isError ? (
        <ErrorState error={events.error} what="alert events" />
      ) : events.data.items.length === 0 ? (
        <p className="muted">No alert has fired.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Rule</th>
              <th scope="col">Event</th>
              <th scope="col" className="num">
                Value
              </th>
              <th scope="col">Example runs</th>
            </tr>
          </thead>
          <tbody>
            {events.data.items.map((e) => (
              <tr key={e.id}>
                <td>{formatTime(e.createdAt)}</td>
                <td>{e.ruleName}</td>
                <td>{e.type}</td>
                <td className="num">{e.current.value ?? "–"}</td>
                <td>
                  {e.exampleTraceIds.slice(0, 3).map((id) => (
                    <Link key={id} to={`/runs/${id}`}>
                      {id.slice(0, 8)}{" "}
                    </Link>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function WebhooksSection() {
  const queryClient = useQueryClient();
  const hooks = useQuery({ queryKey: ["webhooks"], queryFn: () => api<Webhooks>("/webhooks?limit=500") });
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["webhooks"] });
  const create = useMutation({
    mutationFn: (body: WebhookInput) => api<WebhookCreated>("/webhooks", { method: "POST", body }),
    onSuccess: (w) => {
      setSecret(w.secret);
      setUrl("");
      refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: (id: string) => api<WebhookCreated>(`/webhooks/${id}/rotate-secret`, { method: "POST" }),
    onSuccess: (w) => setSecret(w.secret),
  });
  const test = useMutation({
    mutationFn: (id: string) => api(`/webhooks/${id}/test`, { method: "POST" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["deliveries"] }),
  });
  return (
    <section aria-label="Webhooks">
      {secret && (
        <p className="ok" role="status">
          Signing secret (shown once, store it now): <code>{secret}</code>
        </p>
      )}
      {hooks.isPending ? (
        <Loading what="webhooks" />
      ) : hooks.isError ? (
        <ErrorState error={hooks.error} what="webhooks" />
      ) : hooks.data.items.length === 0 ? (
        <p className="muted">No webhook yet.</p>
      ) : (
        <ul className="webhooks">
          {hooks.data.items.map((w) => (
            <li key={w.id} data-webhook={w.url}>
              <code>{w.url}</code> <span className="muted">secret {w.secretPrefix}…</span>
              <button type="button" onClick={() => test.mutate(w.id)}>
                Send test
              </button>
              <button type="button" onClick={() => rotate.mutate(w.id)}>
                Rotate secret
              </button>
              <button type="button" onClick={() => setOpen(open === w.id ? null : w.id)} aria-expanded={open === w.id}>
                Deliveries
              </button>
              {open === w.id && <DeliveriesList webhookId={w.id} />}
            </li>
          ))}
        </ul>
      )}
      <form
        className="inline-form"
        aria-label="New webhook"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ url });
        }}
      >
        <label>
          Webhook URL
          <input value={url} onChange={(e) => setUrl(e.target.value)} type="url" required placeholder="https://example.com/hooks/crux" />
        </label>
        <button type="submit" disabled={create.isPending}>
          Add webhook
        </button>
        {[create, rotate, test].map((m, i) =>
          m.isError ? (
            <p key={i} className="field-error" role="alert">
              {errorText(m.error)}
            </p>
          ) : null,
        )}
      </form>
    </section>
  );
}

function DeliveriesList({ webhookId }: { webhookId: string }) {
  const queryClient = useQueryClient();
  const deliveries = useQuery({ queryKey: ["deliveries", webhookId], queryFn: () => api<Deliveries>(`/webhooks/${webhookId}/deliveries?limit=50`) });
  const retry = useMutation({
    mutationFn: (id: string) => api(`/deliveries/${id}/retry`, { method: "POST" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["deliveries", webhookId] }),
  });
  if (deliveries.isPending) return <Loading what="deliveries" />;
  if (deliveries.isError) return <ErrorState error={deliveries.error} what="deliveries" />;
  if (deliveries.data.items.length === 0) return <p className="muted">No delivery yet.</p>;
  return (
    <ul className="deliveries">
      {deliveries.data.items.map((d) => (
        <li key={d.id}>
          {d.eventType} · {d.status} · {formatTime(d.createdAt)}
          {d.status === "failed" && (
            <button type="button" onClick={() => retry.mutate(d.id)}>
              Retry
            </button>
          )}
          <ul>
            {d.attempts.map((a) => (
              <li key={a.attempt} className="small">
                attempt {a.attempt}: {a.ok ? "ok" : "failed"} {a.status ?? ""} {a.failureKind ?? ""} {a.message ?? ""} ({Math.round(a.durationMs)} ms)
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}
