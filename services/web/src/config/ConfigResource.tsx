/**
 * One configuration resource (/prices, /agent-contracts, ...): its rows, each with Edit (the form
 * takes the row's values; saving PUTs it) and Delete (asked twice, then DELETE), and the form
 * that creates or replaces a row with the API's validation errors on the field they concern.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api } from "../api.ts";
import { ErrorState, Loading } from "../ui.tsx";
import { fieldErrors, formError } from "./errors.ts";
import { cellText, fromForm, JsonFieldError, toForm, type FieldSpec, type FormValues } from "./fields.ts";

type Row = Record<string, unknown>;

export interface ResourceSpec {
  path: string;
  title: string;
  /** "price", "agent contract": in button and form names. */
  noun: string;
  columns: string[];
  fields: FieldSpec[];
  /** Rows that can be edited and deleted (prices: the project's own, not the seeded defaults). */
  editable?: (row: Row) => boolean;
  /** A row's name in its buttons' accessible names. */
  rowName: (row: Row) => string;
}

export function ConfigResource({ spec }: { spec: ResourceSpec }) {
  const queryClient = useQueryClient();
  const slug = spec.path.replace(/\W/g, "");
  const q = useQuery({ queryKey: ["config", spec.path], queryFn: () => api<{ items: Row[] }>(spec.path) });
  const [editing, setEditing] = useState<string | null>(null);
  const [values, setValues] = useState<FormValues>(() => toForm(spec.fields, null));
  const [confirming, setConfirming] = useState<string | null>(null);
  const [jsonError, setJsonError] = useState<JsonFieldError | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["config", spec.path] });
  const reset = () => {
    setEditing(null);
    setValues(toForm(spec.fields, null));
    setJsonError(null);
  };
  const save = useMutation({
    mutationFn: (body: unknown) =>
      editing ? api(`${spec.path}/${encodeURIComponent(editing)}`, { method: "PUT", body }) : api(spec.path, { method: "POST", body }),
    onSuccess: () => {
      reset();
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`${spec.path}/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: (_data, id) => {
      setConfirming(null);
      if (editing === id) reset();
      refresh();
    },
  });
  const errors = jsonError
    ? { [jsonError.field]: jsonError.message }
    : fieldErrors(
        save.error,
        spec.fields.map((f) => f.key),
      );
  const general = jsonError ? null : formError(save.error, errors);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setJsonError(null);
    let body: Record<string, unknown>;
    try {
      body = fromForm(spec.fields, values);
    } catch (err) {
      if (err instanceof JsonFieldError) {
        save.reset();
        setJsonError(err);
        return;
      }
      throw err;
    }
    save.mutate(body);
  };
  const startEdit = (row: Row) => {
    save.reset();
    setJsonError(null);
    setEditing(String(row.id));
    setValues(toForm(spec.fields, row));
  };
  const canEdit = (row: Row) => typeof row.id === "string" && (spec.editable?.(row) ?? true);
  return (
    <section aria-label={spec.title} className="config-resource">
      <h2>{spec.title}</h2>
      {q.isPending ? (
        <Loading what={spec.title.toLowerCase()} />
      ) : q.isError ? (
        <ErrorState error={q.error} what={spec.title.toLowerCase()} retry={() => void q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <p className="muted">None configured.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              {spec.columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((row, i) => {
              const id = typeof row.id === "string" ? row.id : null;
              const name = spec.rowName(row);
              return (
                <tr key={id ?? `row-${i}`} data-id={id ?? undefined} className={editing !== null && editing === id ? "selected" : undefined}>
                  {spec.columns.map((c) => (
                    <td key={c}>{cellText(row[c])}</td>
                  ))}
                  <td className="row-actions">
                    {id && canEdit(row) ? (
                      confirming === id ? (
                        <>
                          <button type="button" className="danger" onClick={() => remove.mutate(id)} disabled={remove.isPending}>
                            Confirm delete
                          </button>
                          <button type="button" onClick={() => setConfirming(null)}>
                            Keep
                          </button>
                        </>
                      ) : (
                        <>
                          <button type="button" aria-label={`Edit ${spec.noun} ${name}`} onClick={() => startEdit(row)}>
                            Edit
                          </button>
                          <button type="button" aria-label={`Delete ${spec.noun} ${name}`} onClick={() => setConfirming(id)}>
                            Delete
                          </button>
                        </>
                      )
                    ) : (
                      <span className="muted small">default</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {remove.isError && (
        <p className="field-error" role="alert">
          Could not delete: {formError(remove.error, {})}
        </p>
      )}
      <form className="inline-form" onSubmit={submit} aria-label={editing ? `Edit ${spec.noun}` : `New ${spec.noun}`}>
        <h3>{editing ? `Edit ${spec.noun}` : `New ${spec.noun}`}</h3>
        {spec.fields.map((f) => {
          const id = `${slug}-${f.key}`;
          const err = errors[f.key];
          // Named by the label alone: the hint and the error are its description.
          const invalid = {
            "aria-label": f.label,
            "aria-invalid": err !== undefined,
            "aria-describedby": err ? `${id}-err` : f.hint ? `${id}-hint` : undefined,
          };
          const v = values[f.key];
          return (
            <label key={f.key} className={f.kind === "json" ? "wide" : f.kind === "boolean" ? "check" : undefined}>
              {f.kind === "boolean" ? (
                <>
                  <input type="checkbox" checked={v === true} onChange={(e) => setValues((s) => ({ ...s, [f.key]: e.target.checked }))} {...invalid} />{" "}
                  {f.label}
                </>
              ) : (
                <>
                  {f.label}
                  {f.kind === "json" ? (
                    <textarea rows={4} value={String(v)} onChange={(e) => setValues((s) => ({ ...s, [f.key]: e.target.value }))} {...invalid} />
                  ) : (
                    <input value={String(v)} onChange={(e) => setValues((s) => ({ ...s, [f.key]: e.target.value }))} {...invalid} />
                  )}
                </>
              )}
              {f.hint && !err && (
                <span id={`${id}-hint`} className="muted small">
                  {f.hint}
                </span>
              )}
              {err && (
                <span id={`${id}-err`} className="field-error">
                  {err}
                </span>
              )}
            </label>
          );
        })}
        <button type="submit" disabled={save.isPending}>
          {editing ? "Save changes" : `Add ${spec.noun}`}
        </button>
        {editing && (
          <button type="button" onClick={reset}>
            Cancel
          </button>
        )}
        {general && (
          <p className="field-error" role="alert">
            {general}
          </p>
        )}
      </form>
    </section>
  );
}
