/**
 * The project's scoring settings (PUT /settings): the FM-1.3 repetition threshold and the three
 * coordination weights. Blank means the default (3; equal weights); the weights are set together.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { api } from "../api.ts";
import { ErrorState, Loading } from "../ui.tsx";
import { fieldErrors, formError } from "./errors.ts";

interface Settings {
  repetitionK: number | null;
  coordinationWeights: { redundancy: number; ignoredHandoffs: number; roleViolations: number } | null;
}

const weights = ["redundancy", "ignoredHandoffs", "roleViolations"] as const;
const weightLabels = { redundancy: "Redundancy weight", ignoredHandoffs: "Ignored-handoffs weight", roleViolations: "Role-violations weight" };

function toForm(s: Settings) {
  return {
    repetitionK: s.repetitionK === null ? "" : String(s.repetitionK),
    ...Object.fromEntries(weights.map((w) => [w, s.coordinationWeights ? String(s.coordinationWeights[w]) : ""])),
  } as Record<"repetitionK" | (typeof weights)[number], string>;
}

export function ScoringSettings() {
  const queryClient = useQueryClient();
  const q = useQuery({ queryKey: ["config", "/settings"], queryFn: () => api<Settings>("/settings") });
  const [form, setForm] = useState<ReturnType<typeof toForm> | null>(null);
  useEffect(() => {
    if (q.data) setForm(toForm(q.data));
  }, [q.data]);
  const save = useMutation({
    mutationFn: (body: unknown) => api<Settings>("/settings", { method: "PUT", body }),
    onSuccess: (data) => queryClient.setQueryData(["config", "/settings"], data),
  });
  const errors = fieldErrors(save.error);
  const general = formError(save.error, errors);
  if (q.isPending) return <Loading what="scoring settings" />;
  if (q.isError) return <ErrorState error={q.error} what="scoring settings" retry={() => void q.refetch()} />;
  if (!form) return null;
  const num = (s: string) => (s.trim() === "" ? null : Number.isNaN(Number(s)) ? s : Number(s));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const anyWeight = weights.some((w) => form[w].trim() !== "");
    save.mutate({
      repetitionK: num(form.repetitionK),
      // A weight left blank beside others is 0: the API takes all three or none.
      coordinationWeights: anyWeight ? Object.fromEntries(weights.map((w) => [w, num(form[w]) ?? 0])) : null,
    });
  };
  const field = (k: keyof typeof form, label: string, errKey: string, hint: string) => (
    <label key={k}>
      {label}
      <input
        value={form[k]}
        aria-label={label}
        onChange={(e) => setForm((f) => f && { ...f, [k]: e.target.value })}
        aria-invalid={errors[errKey] !== undefined}
        aria-describedby={errors[errKey] ? `settings-${errKey}-err` : `settings-${k}-hint`}
      />
      <span id={`settings-${k}-hint`} className="muted small">
        {hint}
      </span>
    </label>
  );
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Scoring settings">
      {field("repetitionK", "Repetition threshold (k)", "repetitionK", "FM-1.3 after k repeated steps; blank = 3")}
      {errors.repetitionK && (
        <span id="settings-repetitionK-err" className="field-error">
          {errors.repetitionK}
        </span>
      )}
      {weights.map((w) => field(w, weightLabels[w], "coordinationWeights", "blank = equal weights"))}
      {errors.coordinationWeights && (
        <span id="settings-coordinationWeights-err" className="field-error">
          Coordination weights: {errors.coordinationWeights}
        </span>
      )}
      <button type="submit" disabled={save.isPending}>
        Save settings
      </button>
      {save.isSuccess && (
        <span role="status" className="muted">
          Saved.
        </span>
      )}
      {general && (
        <p className="field-error" role="alert">
          {general}
        </p>
      )}
    </form>
  );
}
