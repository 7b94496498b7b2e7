/**
 * The shell: whether auth is on (GET /api/ui-config, unauthenticated), the sign-in when it is and
 * this tab holds no key, the navigation, the theme, and the page of the current path (each page
 * but the runs list is its own chunk, loaded when first opened).
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useState, type ReactNode } from "react";
import { api, setUnauthenticatedHandler, storedKey, storeKey } from "./api.ts";
import { Link, useLocation } from "./router.tsx";
import { RunsPage } from "./pages/Runs.tsx";
import { SignIn } from "./SignIn.tsx";
import { ErrorState, Loading } from "./ui.tsx";

const RunPage = lazy(() => import("./pages/Run.tsx"));
const FailureModesPage = lazy(() => import("./pages/FailureModes.tsx"));
const AgentsPage = lazy(() => import("./pages/Agents.tsx"));
const AlertsPage = lazy(() => import("./pages/Alerts.tsx"));
const JudgesPage = lazy(() => import("./pages/Judges.tsx"));
const ConfigPage = lazy(() => import("./pages/Config.tsx"));
const ComparePage = lazy(() => import("./pages/Compare.tsx"));
const ExperimentsPage = lazy(() => import("./pages/Experiments.tsx"));

export interface UiConfig {
  authRequired: boolean;
  otlpHttpPort: number | null;
}

const nav: [string, string][] = [
  ["/runs", "Runs"],
  ["/failure-modes", "Failure modes"],
  ["/agents", "Agents and cost"],
  ["/alerts", "Alerts"],
  ["/judges", "Judges and validation"],
  ["/config", "Configuration"],
  ["/experiments", "Experiments"],
  ["/compare", "Compare"],
];

function useTheme(): [string, () => void] {
  const [theme, setTheme] = useState(() => localStorage.getItem("crux.theme") ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("crux.theme", theme);
  }, [theme]);
  return [theme, () => setTheme((t) => (t === "dark" ? "light" : "dark"))];
}

export function App() {
  const config = useQuery({ queryKey: ["ui-config"], queryFn: () => api<UiConfig>("/api/ui-config"), staleTime: Infinity });
  const [key, setKey] = useState(storedKey);
  const [theme, toggleTheme] = useTheme();
  const queryClient = useQueryClient();
  useEffect(() => {
    setUnauthenticatedHandler(() => {
      storeKey(null);
      setKey(null);
    });
  }, []);
  const signOut = () => {
    storeKey(null);
    setKey(null);
    queryClient.clear();
  };

  let body: ReactNode;
  if (config.isPending) body = <Loading what="Crux's settings" />;
  else if (config.isError) body = <ErrorState error={config.error} what="Crux's settings" retry={() => void config.refetch()} />;
  else if (config.data.authRequired && !key)
    body = (
      <SignIn
        onSignedIn={(k) => {
          storeKey(k);
          setKey(k);
        }}
      />
    );
  else body = <Pages config={config.data} />;

  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/runs" className="brand">
          Crux
        </Link>
        <nav aria-label="Pages">
          <NavLinks />
        </nav>
        <div className="topbar-actions">
          <button type="button" onClick={toggleTheme} aria-label={`Switch to ${theme === "dark" ? "light" : "dark"} theme`}>
            {theme === "dark" ? "Light" : "Dark"} theme
          </button>
          {config.data?.authRequired && key && (
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          )}
        </div>
      </header>
      {config.data && !config.data.authRequired && (
        <p className="auth-off" role="note">
          Auth is off: anyone who can reach this port can read this data (start Crux with CRUX_AUTH=true to require API keys).
        </p>
      )}
      <main id="main">{body}</main>
    </div>
  );
}

function NavLinks() {
  const { path } = useLocation();
  return (
    <ul>
      {nav.map(([to, label]) => (
        <li key={to}>
          <Link to={to} aria-current={path === to || (to === "/runs" && (path === "/" || path.startsWith("/runs/"))) ? "page" : undefined}>
            {label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function Pages({ config }: { config: UiConfig }) {
  const { path } = useLocation();
  const run = /^\/runs\/([0-9a-f]{32})$/.exec(path);
  let page: ReactNode;
  if (path === "/" || path === "/runs") page = <RunsPage config={config} />;
  else if (run) page = <RunPage traceId={run[1]!} />;
  else if (path === "/failure-modes") page = <FailureModesPage />;
  else if (path === "/agents") page = <AgentsPage />;
  else if (path === "/alerts") page = <AlertsPage />;
  else if (path === "/judges") page = <JudgesPage />;
  else if (path === "/config") page = <ConfigPage />;
  else if (path === "/compare") page = <ComparePage />;
  else if (path === "/experiments") page = <ExperimentsPage />;
  else
    page = (
      <div className="state">
        <h1>Page not found</h1>
        <p>
          There is no page at this address. <Link to="/runs">Open the runs list</Link>.
        </p>
      </div>
    );
  return <Suspense fallback={<Loading what="the page" />}>{page}</Suspense>;
}
