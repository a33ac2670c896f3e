import { useState, type ReactNode } from 'react';

interface FoldedProps {
  summary: ReactNode;
  className?: string;
  testId?: string;
  /** children renders the folded content: only once it is first opened (a chart measures its width when it mounts). */
  children: () => ReactNode;
}

/**
 * Folded is a details element, closed at first, whose content is rendered
 * when the reader first opens it and kept after: a page of many of them
 * (a table and a chart per GPU) costs nothing until one is asked for.
 */
export function Folded({ summary, className, testId, children }: FoldedProps) {
  const [opened, setOpened] = useState(false);
  return (
    <details className={className} data-testid={testId} data-opened={opened} onToggle={(e) => e.currentTarget.open && setOpened(true)}>
      <summary>{summary}</summary>
      {opened && children()}
    </details>
  );
}
