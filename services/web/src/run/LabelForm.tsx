/** Labelling the run: modes present or absent, the decisive agent and step. Writes PUT /traces/:id/labels (what /validation reads). */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError } from "../api.ts";
import type { LabelsBody, LabelsInput } from "../types.ts";
import { Section } from "../ui.tsx";

const modes = ["FM-1.1", "FM-1.2", "FM-1.3", "FM-1.4", "FM-1.5", "FM-2.1", "FM-2.2", "FM-2.3", "FM-2.4", "FM-2.5", "FM-2.6", "FM-3.1", "FM-3.2", "FM-3.3"];

export function LabelForm({
  traceId,
  agents,
  selected,
}: {
  traceId: string;
  agents: string[];
  /** The selected span and its step, offered as the decisive step. */
  selected: { spanId: string; stepIndex: number | null; agent: string | null } | null;
}) {
  const queryClient = useQueryClient();
  const labels = useQuery({ queryKey: ["labels", traceId], queryFn: () => api<LabelsBody>(`/traces/${traceId}/labels`) });
  const [modeValues, setModeValues] = useState<Record<string, "" | "present" | "absent">>({});
  const [agent, setAgent] = useState("");
  const [step, setStep] = useState<{ spanId: string; stepIndex: number | null } | null>(null);
  const [labeller, setLabeller] = useState(() => localStorage.getItem("crux.labeller") ?? "");
  const [note, setNote] = useState("");
  useEffect(() => {
    const l = labels.data?.labels;
    if (!l) return;
    setModeValues(Object.fromEntries(Object.entries(l.modes).map(([m, v]) => [m, v ? "present" : "absent"])));
    setAgent(l.decisive.agent ?? "");
    setStep(l.decisive.spanId || l.decisive.stepIndex !== null ? { spanId: l.decisive.spanId ?? "", stepIndex: l.decisive.stepIndex } : null);
    setNote(l.note ?? "");
    if (l.labeller) setLabeller((x) => x || l.labeller);
  }, [labels.data]);
  const save = useMutation({
    mutationFn: (body: LabelsInput) => api(`/traces/${traceId}/labels`, { method: "PUT", body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["labels", traceId] });
      void queryClient.invalidateQueries({ queryKey: ["validation"] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    localStorage.setItem("crux.labeller", labeller);
    const labelled = Object.fromEntries(
      Object.entries(modeValues)
        .filter(([, v]) => v !== "")
        .map(([m, v]) => [m, v === "present"]),
    );
    save.mutate({
      modes: labelled,
      decisive: agent || step ? { agent: agent || null, spanId: step?.spanId || null, stepIndex: step?.stepIndex ?? null } : null,
      note: note || null,
      labeller,
    });
  };
  const error = save.error instanceof ApiError ? save.error.message : save.error ? String(save.error) : null;
  return (
    <Section title="Label this run">
      <form className="label-form" onSubmit={submit} aria-label="Label this run">
        <fieldset>
          <legend>Failure modes</legend>
          <div className="mode-grid">
            {modes.map((m) => (
              <label key={m}>
                {m}
                <select
                  value={modeValues[m] ?? ""}
                  data-mode={m}
                  onChange={(e) => setModeValues((v) => ({ ...v, [m]: e.target.value as "" | "present" | "absent" }))}
                >
                  <option value="">not labelled</option>
                  <option value="present">present</option>
                  <option value="absent">absent</option>
                </select>
              </label>
            ))}
          </div>
        </fieldset>
        <label>
          Decisive agent
          <select value={agent} onChange={(e) => setAgent(e.target.value)}>
            <option value="">none</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <div className="decisive-step">
          Decisive step: {step ? `${step.stepIndex !== null ? `step ${step.stepIndex}` : "span"} ${step.spanId}` : "none"}{" "}
          <button
            type="button"
            disabled={!selected}
            onClick={() => {
              if (!selected) return;
              setStep({ spanId: selected.spanId, stepIndex: selected.stepIndex });
              if (selected.agent && !agent) setAgent(selected.agent);
            }}
          >
            Use the selected span
          </button>
          {step && (
            <button type="button" onClick={() => setStep(null)}>
              Clear
            </button>
          )}
        </div>
        <label>
          Note
          <textarea value={note} onChange={(e) => setNote(e.target.value)} rows={2} />
        </label>
        <label>
          Labelled by
          <input value={labeller} onChange={(e) => setLabeller(e.target.value)} required />
        </label>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        {save.isSuccess && !save.isPending && (
          <p className="ok" role="status">
            Labels saved: validation now counts this run.
          </p>
        )}
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save labels"}
        </button>
      </form>
    </Section>
  );
}
