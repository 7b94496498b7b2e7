/**
 * The project's judge settings, every field of PUT /judge-settings: on or off, provider, model,
 * base URL, the provider key (write-only: never shown; left blank it is kept, or removed on
 * request), sampling share, daily budget. The API's validation errors land on their field.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { api, ApiError } from "../api.ts";
import { fieldErrors } from "../config/errors.ts";
import type { JudgeSettingsBody } from "../types.ts";

export function JudgeSettingsForm({ settings }: { settings: JudgeSettingsBody }) {
  const queryClient = useQueryClient();
  const s = settings.stored;
  const [form, setForm] = useState({
    enabled: s.enabled,
    provider: s.provider ?? "",
    model: s.model ?? "",
    baseUrl: s.baseUrl ?? "",
    apiKey: "",
    removeKey: false,
    samplingShare: s.samplingShare === null ? "" : String(s.samplingShare),
    dailyBudgetUsd: s.dailyBudgetUsd === null ? "" : String(s.dailyBudgetUsd),
  });
  const save = useMutation({
    mutationFn: (body: unknown) => api<JudgeSettingsBody>("/judge-settings", { method: "PUT", body }),
    onSuccess: (data) => {
      queryClient.setQueryData(["judge-settings"], data);
      setForm((f) => ({ ...f, apiKey: "", removeKey: false }));
    },
  });
  const errors = fieldErrors(save.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const num = (v: string) => (v.trim() === "" ? null : Number.isNaN(Number(v)) ? v : Number(v));
    const provider = form.provider === "" ? null : form.provider;
    save.mutate({
      enabled: form.enabled,
      provider,
      model: form.model.trim() === "" ? null : form.model.trim(),
      baseUrl: form.baseUrl.trim() === "" ? null : form.baseUrl.trim(),
      // Omitted keeps the stored key; null removes it.
      ...(form.removeKey ? { apiKey: null } : form.apiKey !== "" ? { apiKey: form.apiKey } : {}),
      samplingShare: num(form.samplingShare),
      dailyBudgetUsd: num(form.dailyBudgetUsd),
      rubric: s.rubric,
      kinds: s.kinds,
    });
  };
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const field = (k: string, label: string, input: ReactNode) => (
    <label>
      {label}
      {input}
      {errors[k] && (
        <span id={`err-judge-${k}`} className="field-error">
          {errors[k]}
        </span>
      )}
    </label>
  );
  const invalid = (k: string) => ({ "aria-invalid": errors[k] !== undefined, "aria-describedby": errors[k] ? `err-judge-${k}` : undefined });
  return (
    <form className="inline-form judge-settings" onSubmit={submit} aria-label="Judge settings">
      <label className="check">
        <input type="checkbox" checked={form.enabled} onChange={(e) => setForm((f) => ({ ...f, enabled: e.target.checked }))} /> Judges on
      </label>
      {field(
        "provider",
        "Provider",
        <select value={form.provider} onChange={set("provider")} {...invalid("provider")}>
          <option value="">service default</option>
          <option value="anthropic">anthropic</option>
          <option value="openai">openai (or compatible)</option>
        </select>,
      )}
      {field("model", "Judge model", <input value={form.model} onChange={set("model")} placeholder={settings.effective.model ?? ""} {...invalid("model")} />)}
      {field("baseUrl", "Base URL", <input value={form.baseUrl} onChange={set("baseUrl")} placeholder="the provider's public API" {...invalid("baseUrl")} />)}
      {field(
        "apiKey",
        "Provider key (write-only)",
        <input
          type="password"
          autoComplete="off"
          value={form.apiKey}
          onChange={set("apiKey")}
          disabled={form.removeKey || !settings.canStoreApiKey}
          placeholder={s.apiKeySet ? `set (…${s.apiKeyLast4 ?? ""}); blank keeps it` : "not set"}
          {...invalid("apiKey")}
        />,
      )}
      {s.apiKeySet && (
        <label className="check">
          <input type="checkbox" checked={form.removeKey} onChange={(e) => setForm((f) => ({ ...f, removeKey: e.target.checked }))} /> Remove the stored key
        </label>
      )}
      {field(
        "samplingShare",
        "Sampling share (0–1)",
        <input
          value={form.samplingShare}
          onChange={set("samplingShare")}
          inputMode="decimal"
          placeholder={String(settings.effective.samplingShare)}
          {...invalid("samplingShare")}
        />,
      )}
      {field(
        "dailyBudgetUsd",
        "Daily budget (USD)",
        <input
          value={form.dailyBudgetUsd}
          onChange={set("dailyBudgetUsd")}
          inputMode="decimal"
          placeholder={String(settings.effective.dailyBudgetUsd)}
          {...invalid("dailyBudgetUsd")}
        />,
      )}
      <button type="submit">Save</button>
      {!settings.canStoreApiKey && <p className="muted small">This service has no CRUX_SECRET_KEY, so it cannot store a provider key.</p>}
      {save.isSuccess && (
        <p role="status" className="ok">
          Judge settings saved.
        </p>
      )}
      {save.isError && Object.keys(errors).length === 0 && (
        <p className="field-error" role="alert">
          {save.error instanceof ApiError ? save.error.message : String(save.error)}
        </p>
      )}
    </form>
  );
}
