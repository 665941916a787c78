import { Link, Route, Switch, useLocation } from 'wouter';
import { TaskBrowserPage } from './pages/TaskBrowserPage';
import { TaskPlayerPage } from './pages/TaskPlayerPage';
import { ErrorBoundary } from './ui/ErrorBoundary';
import { GamesPage } from './pages/GamesPage';
import { GamePlayerPage } from './pages/GamePlayerPage';
import { StudyPage } from './study/StudyPage';
import { LoginPage } from './studio/LoginPage';
import { StudiesPage } from './studio/StudiesPage';
import { StudyResultsPage } from './studio/StudyResultsPage';
import { ReplayPage } from './studio/ReplayPage';
import { AgentReplayPage } from './studio/AgentReplayPage';
import { PlaytestPage } from './studio/PlaytestPage';
import { StudyEditorPage } from './studio/StudyEditorPage';
import { CampaignPage } from './studio/CampaignPage';
import { ScorePage } from './studio/ScorePage';
import { GraderPage } from './grading/GraderPage';

const NAV = [
  { href: '/', label: 'Tasks', match: (p: string) => p === '/' || p.startsWith('/tasks') },
  { href: '/games', label: 'Games', match: (p: string) => p.startsWith('/games') },
  { href: '/studies', label: 'Studies', match: (p: string) => p.startsWith('/studies') || p.startsWith('/login') },
  { href: '/score', label: 'Score', match: (p: string) => p.startsWith('/score') },
];

export function App() {
  const [location] = useLocation();
  // Participants see the study alone, without the studio around it.
  if (location.startsWith('/s/')) {
    return (
      <div className="h-full">
        <ErrorBoundary resetKey={location}>
          <Route path="/s/:studyId" component={StudyPage} />
        </ErrorBoundary>
      </div>
    );
  }
  // A grader's link: the answers to grade, without the studio either.
  if (location.startsWith('/grade/')) {
    return (
      <div className="h-full">
        <ErrorBoundary resetKey={location}>
          <Route path="/grade/:token" component={GraderPage} />
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
        <nav className="flex gap-1 text-sm">
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
      </header>
      <main className="min-h-0 flex-1">
        <ErrorBoundary resetKey={location}>
          <Switch>
            <Route path="/" component={TaskBrowserPage} />
            <Route path="/tasks/:collection/*" component={TaskPlayerPage} />
            <Route path="/games" component={GamesPage} />
            <Route path="/games/:id" component={GamePlayerPage} />
            <Route path="/games/:id/playtest" component={PlaytestPage} />
            <Route path="/login" component={LoginPage} />
            <Route path="/score" component={ScorePage} />
            <Route path="/studies" component={StudiesPage} />
            <Route path="/studies/new" component={StudyEditorPage} />
            <Route path="/studies/:studyId" component={StudyResultsPage} />
            <Route path="/studies/:studyId/edit" component={StudyEditorPage} />
            <Route path="/studies/:studyId/campaign" component={CampaignPage} />
            <Route path="/studies/:studyId/sessions/:sessionId" component={ReplayPage} />
            <Route path="/studies/:studyId/agents/:guid" component={AgentReplayPage} />
            <Route>
              <div className="p-8 text-slate-300">
                This page does not exist.{' '}
                <Link href="/" className="text-sky-400 underline">
                  Go to the task browser
                </Link>
                .
              </div>
            </Route>
          </Switch>
        </ErrorBoundary>
      </main>
    </div>
  );
}
