import { graphql } from '../gql';

// Typed operations of the provider's Benchmarks tab; `npm run codegen` turns
// each into a TypedDocumentNode in src/gql/. The query, the subscription and
// the mutation's answer select the same MachineBenchmarksFields, so a live
// event replaces a machine's standing as a whole.

export const BenchmarkFigureFieldsFragment = graphql(`
  fragment BenchmarkFigureFields on BenchmarkFigure {
    metric
    supported
    measured
    reference
    expected
    minimum
    ratio
    passed
  }
`);

export const GpuBenchmarkFieldsFragment = graphql(`
  fragment GpuBenchmarkFields on GpuBenchmark {
    id
    runId
    reason
    at
    simulated
    outcome
    error
    score
    passed
    consistency
  }
`);

export const BenchmarkGuidanceFieldsFragment = graphql(`
  fragment BenchmarkGuidanceFields on BenchmarkGuidance {
    code
    message
    params {
      key
      value
    }
  }
`);

export const BenchmarkRunFieldsFragment = graphql(`
  fragment BenchmarkRunFields on BenchmarkRun {
    id
    runId
    reason
    state
    requestedAt
    startedAt
    finishedAt
    simulated
    steps {
      part
      gpuUuid
      outcome
    }
  }
`);

export const MachineBenchmarksFieldsFragment = graphql(`
  fragment MachineBenchmarksFields on MachineBenchmarks {
    machineId
    hostname
    requestAllowedAt
    nextScheduledAt
    pendingRun {
      ...BenchmarkRunFields
    }
    latestRun {
      ...BenchmarkRunFields
      network {
        outcome
        error
        figures {
          ...BenchmarkFigureFields
        }
      }
      storage {
        outcome
        error
        figures {
          ...BenchmarkFigureFields
        }
      }
    }
    gpus {
      gpuId
      gpuUuid
      listing
      score
      listingChangedAt
      shortfalls {
        ...BenchmarkFigureFields
      }
      guidance {
        ...BenchmarkGuidanceFields
      }
      latest {
        ...GpuBenchmarkFields
        figures {
          ...BenchmarkFigureFields
        }
      }
      history {
        ...GpuBenchmarkFields
      }
    }
  }
`);

export const ProviderBenchmarksQuery = graphql(`
  query ProviderBenchmarks {
    myProvider {
      id
      name
      machines {
        id
        gpus {
          id
          index
          name
          model {
            name
          }
        }
      }
      benchmarks {
        ...MachineBenchmarksFields
      }
    }
  }
`);

export const BenchmarkUpdatedSubscription = graphql(`
  subscription BenchmarkUpdated {
    benchmarkUpdated {
      initial
      machine {
        ...MachineBenchmarksFields
      }
    }
  }
`);

export const RequestBenchmarkMutation = graphql(`
  mutation RequestBenchmark($input: RequestBenchmarkInput!) {
    requestBenchmark(input: $input) {
      run {
        ...BenchmarkRunFields
      }
      requestAllowedAt
      userErrors {
        field
        code
        message
      }
    }
  }
`);
