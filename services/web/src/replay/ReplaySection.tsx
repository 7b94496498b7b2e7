/**
 * The run's replay section: on a failed run, "Replay with corrections" opens the form (also
 * opened by ?replay=new, the link an experiment report gives a failed run); below it, the run's
 * replays with their progress and reports.
 */
import { useLocation, useSearchUpdate } from "../router.tsx";
import { Section } from "../ui.tsx";
import { ReplayForm } from "./ReplayForm.tsx";
import { ReplayPanel } from "./ReplayPanel.tsx";

export function ReplaySection({
  traceId,
  failed,
  agents,
  selected,
}: {
  traceId: string;
  failed: boolean;
  agents: string[];
  selected: { spanId: string; name: string; agent: string | null } | null;
}) {
  const { search } = useLocation();
  const update = useSearchUpdate();
  const open = search.get("replay") === "new";
  return (
    <Section
      title="Replays"
      actions={
        failed && !open ? (
          <button type="button" onClick={() => update({ replay: "new" }, { replace: true })}>
            Replay with corrections
          </button>
        ) : undefined
      }
    >
      {open &&
        (failed ? (
          <ReplayForm traceId={traceId} agents={agents} selected={selected} onStarted={() => update({ replay: null }, { replace: true })} />
        ) : (
          <p className="muted">Only a failed run is replayed: this run did not fail.</p>
        ))}
      <ReplayPanel traceId={traceId} />
    </Section>
  );
}
