/** Configuration: prices, contracts, milestone sets, baselines, settings; the API's validation errors shown on the field they concern. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, ApiError } from "../api.ts";
import { useTitle } from "../router.tsx";
import { ErrorState, Loading } from "../ui.tsx";

interface Listing {
  items: Record<string, unknown>[];
}

function fieldErrors(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError) || !Array.isArray(err.details)) return {};
  const out: Record<string, string> = {};
  for (const d of err.details as { path?: string; message?: string }[]) {
    const field = (d.path ?? "").replace(/^\//, "").split("/")[0] ?? "";
    out[field] = d.message ?? "invalid";
  }
  return out;
}

function ConfigList({ path, title, columns }: { path: string; title: string; columns: string[] }) {
  const q = useQuery({ queryKey: ["config", path], queryFn: () => api<Listing>(`${path}?limit=500`) });
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {q.isPending ? (
        <Loading what={title.toLowerCase()} />
      ) : q.isError ? (
        <ErrorState error={q.error} what={title.toLowerCase()} />
      ) : q.data.items.length === 0 ? (
        <p className="muted">None configured.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((item, i) => (
              <tr key={i}>
                {columns.map((c) => {
                  const v = item[c];
                  return <td key={c}>{v === null || v === undefined ? "–" : typeof v === "object" ? JSON.stringify(v) : String(v)}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export default function ConfigPage() {
  useTitle("Configuration");
  const queryClient = useQueryClient();
  const [price, setPrice] = useState({ model: "", inputPerMTok: "", outputPerMTok: "" });
  const create = useMutation({
    mutationFn: (body: unknown) => api("/prices", { method: "POST", body }),
    onSuccess: () => {
      setPrice({ model: "", inputPerMTok: "", outputPerMTok: "" });
      void queryClient.invalidateQueries({ queryKey: ["config", "/prices"] });
    },
  });
  const errors = fieldErrors(create.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const num = (s: string) => (s.trim() === "" || Number.isNaN(Number(s)) ? s : Number(s));
    create.mutate({ model: price.model, inputPerMTok: num(price.inputPerMTok), outputPerMTok: num(price.outputPerMTok) });
  };
  const field = (k: keyof typeof price, label: string) => (
    <label>
      {label}
      <input
        value={price[k]}
        onChange={(e) => setPrice((p) => ({ ...p, [k]: e.target.value }))}
        aria-invalid={errors[k] !== undefined}
        aria-describedby={errors[k] ? `err-${k}` : undefined}
      />
      {errors[k] && (
        <span id={`err-${k}`} className="field-error">
          {errors[k]}
        </span>
      )}
    </label>
  );
  return (
    <div className="page">
      <h1>Configuration</h1>
      <ConfigList path="/prices" title="Prices" columns={["model", "inputPerMTok", "outputPerMTok", "cachedInputPerMTok", "source"]} />
      <form className="inline-form" onSubmit={submit} aria-label="New price">
        {field("model", "Model")}
        {field("inputPerMTok", "Input $/MTok")}
        {field("outputPerMTok", "Output $/MTok")}
        <button type="submit">Add price</button>
        {create.isError && Object.keys(errors).length === 0 && (
          <p className="field-error" role="alert">
            {create.error instanceof ApiError ? create.error.message : String(create.error)}
          </p>
        )}
      </form>
      <ConfigList path="/agent-contracts" title="Agent contracts" columns={["serviceName", "agent", "role", "isVerifier", "allowedTools", "forbiddenTools"]} />
      <ConfigList path="/handoff-contracts" title="Handoff contracts" columns={["serviceName", "sender", "receiver", "requiredConstraints", "jsonSchema"]} />
      <ConfigList path="/milestone-sets" title="Milestone sets" columns={["serviceName", "taskId", "milestones"]} />
      <ConfigList path="/baselines" title="Baselines" columns={["serviceName", "taskId", "tokens", "costUsd"]} />
    </div>
  );
}
