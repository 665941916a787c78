/**
 * The fewest clicks known to win each level of Glow, from the level's start (found by
 * breadth-first search over one click per lamp, so minimal). The golden replay test plays every one.
 */
export const solutions: readonly string[] = [
  'ACTION6:32:35',
  'ACTION6:12:35,ACTION6:20:35,ACTION6:20:43,ACTION6:12:51,ACTION6:28:51',
  'ACTION6:40:19,ACTION6:24:35,ACTION6:48:43,ACTION6:32:51',
  'ACTION6:24:31,ACTION6:40:31,ACTION6:16:47,ACTION6:48:47',
  'ACTION6:16:19,ACTION6:24:35,ACTION6:48:35,ACTION6:40:51',
  'ACTION6:36:23,ACTION6:12:31,ACTION6:44:39,ACTION6:20:47,ACTION6:52:55',
];
