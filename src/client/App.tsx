import { lazy, Suspense, type ComponentType } from 'react';
import { Link, Route, Switch, useLocation } from 'wouter';
import { ErrorBoundary } from './ui/ErrorBoundary';
import { StudyPage } from './study/StudyPage';
import { SignedIn } from './studio/SignedIn';

/**
 * A page loaded when first shown. A participant's study page (above) is in the app's first
 * script with all it needs, so a study keeps working offline once open; the studio's pages, the
 * task and game browsers and the grader's page come in scripts of their own, which a participant
 * never downloads.
 */
function page<P extends object>(load: () => Promise<ComponentType<P>>) {
  return lazy(async () => ({ default: await load() }));
}

const TaskBrowserPage = page(() => import('./pages/TaskBrowserPage').then((m) => m.TaskBrowserPage));
const TaskPlayerPage = page(() => import('./pages/TaskPlayerPage').then((m) => m.TaskPlayerPage));
const GamesPage = page(() => import('./pages/GamesPage').then((m) => m.GamesPage));
const GamePlayerPage = page(() => import('./pages/GamePlayerPage').then((m) => m.GamePlayerPage));
const LoginPage = page(() => import('./studio/LoginPage').then((m) => m.LoginPage));
const SigninPage = page(() => import('./studio/SigninPage').then((m) => m.SigninPage));
const PeoplePage = page(() => import('./studio/PeoplePage').then((m) => m.PeoplePage));
const TokensPage = page(() => import('./studio/TokensPage').then((m) => m.TokensPage));
const StudiesPage = page(() => import('./studio/StudiesPage').then((m) => m.StudiesPage));
const StudyResultsPage = page(() => import('./studio/StudyResultsPage').then((m) => m.StudyResultsPage));
const ReplayPage = page(() => import('./studio/ReplayPage').then((m) => m.ReplayPage));
const AgentReplayPage = page(() => import('./studio/AgentReplayPage').then((m) => m.AgentReplayPage));
const PlaytestPage = page(() => import('./studio/PlaytestPage').then((m) => m.PlaytestPage));
const GameBaselinesPage = page(() => import('./studio/GameBaselinesPage').then((m) => m.GameBaselinesPage));
const StudyEditorPage = page(() => import('./studio/StudyEditorPage').then((m) => m.StudyEditorPage));
const CampaignPage = page(() => import('./studio/CampaignPage').then((m) => m.CampaignPage));
const ScorePage = page(() => import('./studio/ScorePage').then((m) => m.ScorePage));
const DataRequestsPage = page(() => import('./studio/DataRequestsPage').then((m) => m.DataRequestsPage));
const DeletionReceiptPage = page(() => import('./studio/DataRequestsPage').then((m) => m.DeletionReceiptPage));
const GraderPage = page(() => import('./grading/GraderPage').then((m) => m.GraderPage));
const ConsolePage = page(() => import('./centre/ConsolePage').then((m) => m.ConsolePage));
const PayoutsPage = page(() => import('./centre/PayoutsPage').then((m) => m.PayoutsPage));
const StationPage = page(() => import('./centre/StationPage').then((m) => m.StationPage));

/** What shows while a page's script loads (a moment, on a first visit). */
function Loading() {
  return (
    <p role="status" className="p-8 text-sm text-slate-400">
      Loading…
    </p>
  );
}

const NAV = [
  { href: '/', label: 'Tasks', match: (p: string) => p === '/' || p.startsWith('/tasks') },
  { href: '/games', label: 'Games', match: (p: string) => p.startsWith('/games') },
  {
    href: '/studies',
    label: 'Studies',
    match: (p: string) => p.startsWith('/studies') || p.startsWith('/login') || p.startsWith('/signin'),
  },
  { href: '/score', label: 'Score', match: (p: string) => p.startsWith('/score') },
];

export function App() {
  const [location] = useLocation();
  // Participants see the study alone, without the studio around it.
  if (location.startsWith('/s/')) {
    return (
      <div className="h-full">
        <ErrorBoundary resetKey={location}>
          <Route path="/s/:studyId">
            <StudyPage />
          </Route>
        </ErrorBoundary>
      </div>
    );
  }
  // A testing centre's station: a kiosk, without the studio's navigation.
  if (location === '/station') {
    return (
      <div className="h-full">
        <ErrorBoundary resetKey={location}>
          <Suspense fallback={<Loading />}>
            <StationPage />
          </Suspense>
        </ErrorBoundary>
      </div>
    );
  }
  // A grader's link: the answers to grade, without the studio either.
  if (location.startsWith('/grade/')) {
    return (
      <div className="h-full">
        <ErrorBoundary resetKey={location}>
          <Suspense fallback={<Loading />}>
            <Route path="/grade/:token" component={GraderPage} />
          </Suspense>
        </ErrorBoundary>
      </div>
    );
  }
  return (
    <div className="flex h-full flex-col">
      <header className="flex h-11 shrink-0 items-center gap-3 border-b border-slate-800 bg-slate-900 px-3 sm:gap-6 sm:px-4">
        <Link
          href="/"
          className="flex items-center gap-2 whitespace-nowrap font-semibold tracking-tight text-slate-100"
        >
          <img src="/favicon.svg" alt="" className="h-5 w-5" />
          <span className="sr-only sm:not-sr-only">ARC Studio</span>
        </Link>
        {/* On a phone the links scroll sideways rather than push the page wider than the screen. */}
        <nav className="flex min-w-0 gap-1 overflow-x-auto whitespace-nowrap text-sm">
          {NAV.map((n) => (
            <Link
              key={n.href}
              href={n.href}
              className={`rounded px-2 py-1 sm:px-2.5 ${n.match(location) ? 'bg-slate-800 text-white' : 'text-slate-400 hover:text-slate-100'}`}
            >
              {n.label}
            </Link>
          ))}
        </nav>
        <SignedIn />
      </header>
      <main className="min-h-0 flex-1">
        <ErrorBoundary resetKey={location}>
          <Suspense fallback={<Loading />}>
            <Switch>
              <Route path="/" component={TaskBrowserPage} />
              <Route path="/tasks/:collection/*" component={TaskPlayerPage} />
              <Route path="/games" component={GamesPage} />
              <Route path="/games/:id" component={GamePlayerPage} />
              <Route path="/games/:id/playtest" component={PlaytestPage} />
              <Route path="/games/:id/baselines" component={GameBaselinesPage} />
              <Route path="/login" component={LoginPage} />
              <Route path="/signin" component={SigninPage} />
              <Route path="/people" component={PeoplePage} />
              <Route path="/tokens" component={TokensPage} />
              <Route path="/score" component={ScorePage} />
              <Route path="/data-requests" component={DataRequestsPage} />
              <Route path="/data-requests/:receiptId" component={DeletionReceiptPage} />
              <Route path="/studies" component={StudiesPage} />
              <Route path="/studies/new" component={StudyEditorPage} />
              <Route path="/studies/:studyId" component={StudyResultsPage} />
              <Route path="/studies/:studyId/edit" component={StudyEditorPage} />
              <Route path="/studies/:studyId/campaign" component={CampaignPage} />
              <Route path="/studies/:studyId/centre" component={ConsolePage} />
              <Route path="/studies/:studyId/centre/payouts" component={PayoutsPage} />
              <Route path="/studies/:studyId/sessions/:sessionId" component={ReplayPage} />
              <Route path="/studies/:studyId/agents/:guid" component={AgentReplayPage} />
              <Route>
                <div className="p-8 text-slate-300">
                  <h1 className="mb-2 text-lg font-semibold text-white">This page does not exist</h1>
                  <p>
                    <Link href="/" className="text-sky-400 underline">
                      Go to the task browser
                    </Link>
                    .
                  </p>
                </div>
              </Route>
            </Switch>
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}
