/**
 * Starting a counterfactual replay of a failed run: which agents' outputs (or the selected
 * step's) to replace, the corrected output of each, the trials per correction set and the runner.
 * Whatever the API refuses is shown on the field it concerns.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api } from "../api.ts";
import { formError } from "../config/errors.ts";
import { replayFieldErrors } from "./errors.ts";
import type { ReplayBody } from "../types.ts";

interface Target {
  key: string;
  label: string;
  correction: { agent: string } | { spanId: string };
}

/** A typed output that parses as a JSON object or array is sent as that JSON; anything else as the text typed. */
function outputOf(text: string): unknown {
  const t = text.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}

export function ReplayForm({
  traceId,
  agents,
  selected,
  onStarted,
}: {
  traceId: string;
  agents: string[];
  selected: { spanId: string; name: string; agent: string | null } | null;
  onStarted: () => void;
}) {
  const queryClient = useQueryClient();
  const runners = useQuery({ queryKey: ["runners"], queryFn: () => api<{ items: { id: string; name: string }[] }>("/runners?limit=100") });
  const targets: Target[] = [
    ...agents.map((a) => ({ key: `agent:${a}`, label: `Agent ${a}`, correction: { agent: a } })),
    ...(selected ? [{ key: `span:${selected.spanId}`, label: `Step ${selected.name} (${selected.spanId})`, correction: { spanId: selected.spanId } }] : []),
  ];
  const [checked, setChecked] = useState<string[]>([]);
  const [outputs, setOutputs] = useState<Record<string, string>>({});
  const [trials, setTrials] = useState("5");
  const [runnerId, setRunnerId] = useState("");
  const chosen = targets.filter((t) => checked.includes(t.key));
  const start = useMutation({
    mutationFn: (body: unknown) => api<ReplayBody>(`/traces/${traceId}/replay`, { method: "POST", body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["replays", traceId] });
      onStarted();
    },
  });
  const errors = replayFieldErrors(start.error);
  const general = formError(start.error, errors);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate({
      corrections: chosen.map((t) => ({ ...t.correction, output: outputOf(outputs[t.key] ?? "") })),
      trials: trials.trim() === "" ? undefined : Number(trials),
      ...(runnerId === "" ? {} : { runnerId }),
    });
  };
  const err = (field: string) =>
    errors[field] ? (
      <span id={`err-replay-${field.replace(":", "-")}`} className="field-error">
        {errors[field]}
      </span>
    ) : null;
  const invalid = (field: string) => ({
    "aria-invalid": errors[field] !== undefined,
    "aria-describedby": errors[field] ? `err-replay-${field.replace(":", "-")}` : undefined,
  });
  return (
    <form className="replay-form" onSubmit={submit} aria-label="Start a replay">
      <fieldset data-field="corrections">
        <legend>Correct</legend>
        {targets.map((t) => (
          <label key={t.key} className="check">
            <input
              type="checkbox"
              checked={checked.includes(t.key)}
              onChange={(e) => setChecked((c) => (e.target.checked ? [...c, t.key] : c.filter((k) => k !== t.key)))}
            />{" "}
            {t.label}
          </label>
        ))}
        {!selected && <p className="muted small">Select a step in the views to correct that step alone.</p>}
        {err("corrections")}
      </fieldset>
      {chosen.map((t, i) => (
        <label key={t.key} data-correction={t.key}>
          Corrected output of {t.label.charAt(0).toLowerCase() + t.label.slice(1)}
          <textarea
            rows={3}
            value={outputs[t.key] ?? ""}
            onChange={(e) => setOutputs((o) => ({ ...o, [t.key]: e.target.value }))}
            {...invalid(`correction:${i}`)}
          />
          {err(`correction:${i}`)}
        </label>
      ))}
      <label>
        Trials per correction set
        <input type="number" value={trials} onChange={(e) => setTrials(e.target.value)} {...invalid("trials")} />
        {err("trials")}
      </label>
      <label>
        Runner
        <select value={runnerId} onChange={(e) => setRunnerId(e.target.value)} {...invalid("runner")}>
          <option value="">The project's runner</option>
          {(runners.data?.items ?? []).map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
        {err("runner")}
      </label>
      <p className="muted small">
        Each correction is re-run alone and, with several, all together, this many times each. An output that parses as a JSON object or array is sent as JSON,
        anything else as text.
      </p>
      <button type="submit" disabled={start.isPending}>
        Start the replay
      </button>
      {general && (
        <p className="field-error" role="alert">
          {general}
        </p>
      )}
    </form>
  );
}
