/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    language\n    createdAt\n  }\n": typeof types.UserFieldsFragmentDoc,
    "\n  fragment AuthPayloadFields on AuthPayload {\n    user {\n      ...UserFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n    confirmationSent\n  }\n": typeof types.AuthPayloadFieldsFragmentDoc,
    "\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n": typeof types.MeDocument,
    "\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n": typeof types.SignUpDocument,
    "\n  mutation ConfirmEmail($token: String!) {\n    confirmEmail(token: $token) {\n      ...AuthPayloadFields\n    }\n  }\n": typeof types.ConfirmEmailDocument,
    "\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n": typeof types.LogInDocument,
    "\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n": typeof types.LogOutDocument,
    "\n  mutation SetLanguage($language: Language!) {\n    setLanguage(language: $language) {\n      user {\n        id\n        language\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.SetLanguageDocument,
    "\n  fragment QueueRowFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        key\n        name\n      }\n      otherModel\n      quantity\n    }\n    suggestedTier {\n      tier\n    }\n    tier\n    submittedAt\n    updatedAt\n  }\n": typeof types.QueueRowFieldsFragmentDoc,
    "\n  query ApplicationQueue($status: ApplicationStatus, $first: Int!, $after: String) {\n    providerApplications(status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...QueueRowFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": typeof types.ApplicationQueueDocument,
    "\n  query ApplicationCounts {\n    providerApplicationCounts {\n      status\n      count\n    }\n  }\n": typeof types.ApplicationCountsDocument,
    "\n  subscription ApplicationQueueChanged {\n    providerApplicationChanged {\n      initial\n      application {\n        ...QueueRowFields\n      }\n    }\n  }\n": typeof types.ApplicationQueueChangedDocument,
    "\n  query ApplicationReview($id: ID!) {\n    providerApplication(id: $id) {\n      ...ApplicationFields\n    }\n  }\n": typeof types.ApplicationReviewDocument,
    "\n  subscription ApplicationReviewChanged($id: ID!) {\n    providerApplicationChanged(id: $id) {\n      initial\n      application {\n        ...ApplicationFields\n      }\n    }\n  }\n": typeof types.ApplicationReviewChangedDocument,
    "\n  mutation ApproveApplication($id: ID!, $tier: ProviderTier, $message: String) {\n    approveProviderApplication(id: $id, tier: $tier, message: $message) {\n      application {\n        ...ApplicationFields\n      }\n      provider {\n        id\n        tier\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.ApproveApplicationDocument,
    "\n  mutation RejectApplication($id: ID!, $reason: String!) {\n    rejectProviderApplication(id: $id, reason: $reason) {\n      ...ApplicationPayloadFields\n    }\n  }\n": typeof types.RejectApplicationDocument,
    "\n  mutation RequestApplicationInfo($id: ID!, $message: String!) {\n    requestApplicationInfo(id: $id, message: $message) {\n      ...ApplicationPayloadFields\n    }\n  }\n": typeof types.RequestApplicationInfoDocument,
    "\n  query AdminPayouts($state: PayoutState, $first: Int) {\n    payouts(state: $state, first: $first) {\n      ...PayoutFields\n    }\n    payoutTotals {\n      state\n      count\n      amount\n    }\n  }\n": typeof types.AdminPayoutsDocument,
    "\n  mutation MarkPayoutPaid($input: SettlePayoutInput!) {\n    markPayoutPaid(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.MarkPayoutPaidDocument,
    "\n  mutation MarkPayoutFailed($input: SettlePayoutInput!) {\n    markPayoutFailed(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.MarkPayoutFailedDocument,
    "\n  mutation CreateBankPayoutFile {\n    createBankPayoutFile {\n      file\n      payouts {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.CreateBankPayoutFileDocument,
    "\n  mutation CreditFunds($input: CreditFundsInput!) {\n    creditFunds(input: $input) {\n      balance\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.CreditFundsDocument,
    "\n  query ProvidersByReliability($first: Int!) {\n    providersByReliability(first: $first) {\n      providerId\n      applicationId\n      name\n      components {\n        uptime\n        completion\n        consistency\n      }\n      score\n      floor\n      belowFloor\n    }\n  }\n": typeof types.ProvidersByReliabilityDocument,
    "\n  fragment UserErrorFields on UserError {\n    field\n    message\n    code\n  }\n": typeof types.UserErrorFieldsFragmentDoc,
    "\n  fragment BenchmarkFigureFields on BenchmarkFigure {\n    metric\n    supported\n    measured\n    reference\n    expected\n    minimum\n    ratio\n    passed\n  }\n": typeof types.BenchmarkFigureFieldsFragmentDoc,
    "\n  fragment GpuBenchmarkFields on GpuBenchmark {\n    id\n    runId\n    reason\n    at\n    simulated\n    outcome\n    error\n    score\n    passed\n    consistency\n  }\n": typeof types.GpuBenchmarkFieldsFragmentDoc,
    "\n  fragment BenchmarkGuidanceFields on BenchmarkGuidance {\n    code\n    message\n    params {\n      key\n      value\n    }\n  }\n": typeof types.BenchmarkGuidanceFieldsFragmentDoc,
    "\n  fragment BenchmarkRunFields on BenchmarkRun {\n    id\n    runId\n    reason\n    state\n    requestedAt\n    startedAt\n    finishedAt\n    simulated\n    steps {\n      part\n      gpuUuid\n      outcome\n    }\n  }\n": typeof types.BenchmarkRunFieldsFragmentDoc,
    "\n  fragment MachineBenchmarksFields on MachineBenchmarks {\n    machineId\n    hostname\n    requestAllowedAt\n    nextScheduledAt\n    pendingRun {\n      ...BenchmarkRunFields\n    }\n    latestRun {\n      ...BenchmarkRunFields\n      network {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      storage {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n    }\n    gpus {\n      gpuId\n      gpuUuid\n      listing\n      score\n      listingChangedAt\n      shortfalls {\n        ...BenchmarkFigureFields\n      }\n      guidance {\n        ...BenchmarkGuidanceFields\n      }\n      latest {\n        ...GpuBenchmarkFields\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      history {\n        ...GpuBenchmarkFields\n      }\n    }\n  }\n": typeof types.MachineBenchmarksFieldsFragmentDoc,
    "\n  query ProviderBenchmarks {\n    myProvider {\n      id\n      name\n      machines {\n        id\n        gpus {\n          id\n          index\n          name\n          model {\n            name\n          }\n        }\n      }\n      benchmarks {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n": typeof types.ProviderBenchmarksDocument,
    "\n  subscription BenchmarkUpdated {\n    benchmarkUpdated {\n      initial\n      machine {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n": typeof types.BenchmarkUpdatedDocument,
    "\n  mutation RequestBenchmark($input: RequestBenchmarkInput!) {\n    requestBenchmark(input: $input) {\n      run {\n        ...BenchmarkRunFields\n      }\n      requestAllowedAt\n      userErrors {\n        field\n        code\n        message\n      }\n    }\n  }\n": typeof types.RequestBenchmarkDocument,
    "\n  fragment EarningsFields on Earnings {\n    timeZone\n    asOf\n    accrualPerHour\n    period {\n      kind\n      start\n      end\n      gross\n      fees\n      net\n    }\n    byGpu {\n      gpuId\n      gpuUuid\n      gpuIndex\n      machineId\n      hostname\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    byModel {\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    availableBalance\n    pendingPayouts {\n      ...PayoutFields\n    }\n  }\n": typeof types.EarningsFieldsFragmentDoc,
    "\n  query ProviderEarnings {\n    myProvider {\n      id\n      earnings {\n        ...EarningsFields\n      }\n    }\n  }\n": typeof types.ProviderEarningsDocument,
    "\n  subscription EarningsUpdated {\n    earningsUpdated {\n      ...EarningsFields\n    }\n  }\n": typeof types.EarningsUpdatedDocument,
    "\n  query EarningsHistory($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        timeZone\n        history(from: $from, to: $to, groupBy: $groupBy) {\n          start\n          gross\n          fees\n          net\n        }\n      }\n    }\n  }\n": typeof types.EarningsHistoryDocument,
    "\n  query EarningsHistoryCsv($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        historyCsv(from: $from, to: $to, groupBy: $groupBy)\n      }\n    }\n  }\n": typeof types.EarningsHistoryCsvDocument,
    "\n  query MyFunds {\n    myFunds {\n      balance\n      perHour\n      runsOutAt\n    }\n  }\n": typeof types.MyFundsDocument,
    "\n  fragment DepositFields on Deposit {\n    id\n    state\n    amount\n    credited\n    createdAt\n    expiresAt\n    payment {\n      url\n      recipient\n      mint\n      amount\n      reference\n    }\n    transfers {\n      signature\n      state\n      amount\n      late\n      issue\n      seenAt\n      settledAt\n      explorerUrl\n    }\n  }\n": typeof types.DepositFieldsFragmentDoc,
    "\n  query Deposits($first: Int) {\n    depositTerms {\n      available\n      minimum\n      maximum\n      expiresInSeconds\n    }\n    myDeposits(first: $first) {\n      ...DepositFields\n    }\n  }\n": typeof types.DepositsDocument,
    "\n  mutation CreateDeposit($input: CreateDepositInput!) {\n    createDeposit(input: $input) {\n      deposit {\n        ...DepositFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.CreateDepositDocument,
    "\n  subscription DepositUpdated {\n    depositUpdated {\n      ...DepositFields\n    }\n  }\n": typeof types.DepositUpdatedDocument,
    "\n  fragment ListingFields on Listing {\n    id\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    vramGb\n    pricePerHour\n    performanceScore\n    reliabilityScore\n    uptime\n    tier\n    commitmentMonths\n    location {\n      city\n      country\n      region\n    }\n    rank\n    nextMaintenanceAt\n    simulated\n    providerName\n    driverVersion\n    cudaVersion\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    performance {\n      metric\n      measuredTflops\n      datasheetTflops\n      ratio\n      tflopsPerDollar\n    }\n    measured {\n      at\n      networkDownMbps\n      networkUpMbps\n      storageReadMBps\n      storageWriteMBps\n    }\n    scheduleClosesAt\n    reliabilityParts {\n      uptime\n      completion\n      consistency\n    }\n  }\n": typeof types.ListingFieldsFragmentDoc,
    "\n  query Marketplace($filter: MarketplaceFilter, $sort: MarketplaceSort, $first: Int, $after: String) {\n    marketplace(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...ListingFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.MarketplaceDocument,
    "\n  query MarketplaceModels {\n    supportedGpuModels {\n      key\n      name\n      family\n      vramGb\n    }\n  }\n": typeof types.MarketplaceModelsDocument,
    "\n  mutation StartRental($input: StartRentalInput!) {\n    startRental(input: $input) {\n      rental {\n        id\n        state\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.StartRentalDocument,
    "\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n": typeof types.NotificationFieldsFragmentDoc,
    "\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n": typeof types.NotificationsDocument,
    "\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.MarkNotificationsReadDocument,
    "\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n": typeof types.NotificationAddedDocument,
    "\n  fragment GpuModelFields on GpuModel {\n    key\n    family\n    name\n    variant\n    vramGb\n  }\n": typeof types.GpuModelFieldsFragmentDoc,
    "\n  fragment ApplicationFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        ...GpuModelFields\n      }\n      otherModel\n      quantity\n      ramGb\n      uploadGbps\n      downloadGbps\n      availability {\n        kind\n        timeZone\n        windows {\n          day\n          start\n          end\n        }\n      }\n      location {\n        city\n        country\n        region\n      }\n    }\n    upsProtected\n    commitmentMonths\n    maintenanceNotes\n    suggestedTier {\n      tier\n      reasons\n      reasonCodes\n    }\n    tier\n    history {\n      action\n      actor {\n        name\n        isAdmin\n      }\n      message\n      tier\n      at\n      # Admins only (null for the applicant): what a resubmission changed.\n      changes {\n        field\n        before\n        after\n      }\n    }\n    submittedAt\n    updatedAt\n  }\n": typeof types.ApplicationFieldsFragmentDoc,
    "\n  fragment ApplicationPayloadFields on ProviderApplicationPayload {\n    application {\n      ...ApplicationFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n  }\n": typeof types.ApplicationPayloadFieldsFragmentDoc,
    "\n  query SupportedGpuModels {\n    supportedGpuModels {\n      ...GpuModelFields\n    }\n  }\n": typeof types.SupportedGpuModelsDocument,
    "\n  query MyApplication {\n    myApplication {\n      ...ApplicationFields\n    }\n  }\n": typeof types.MyApplicationDocument,
    "\n  mutation SubmitProviderApplication($input: ProviderApplicationInput!) {\n    submitProviderApplication(input: $input) {\n      ...ApplicationPayloadFields\n    }\n  }\n": typeof types.SubmitProviderApplicationDocument,
    "\n  mutation UpdateProviderApplication($id: ID!, $input: ProviderApplicationInput!, $reply: String) {\n    updateProviderApplication(id: $id, input: $input, reply: $reply) {\n      ...ApplicationPayloadFields\n    }\n  }\n": typeof types.UpdateProviderApplicationDocument,
    "\n  query ProviderProgress {\n    myProvider {\n      id\n      progress {\n        step\n        reachedAt\n      }\n    }\n  }\n": typeof types.ProviderProgressDocument,
    "\n  fragment GpuTelemetryFields on GpuTelemetry {\n    at\n    utilizationPct\n    memoryUsedBytes\n    temperatureC\n    powerDrawW\n    smClockMHz\n    throttleReasons\n    eccCorrected\n    eccUncorrected\n    recentUtilizationPct\n  }\n": typeof types.GpuTelemetryFieldsFragmentDoc,
    "\n  fragment MachineFields on Machine {\n    id\n    machineId\n    heartbeatIntervalSeconds\n    hostname\n    status\n    offlineReason\n    statusChangedAt\n    lastHeartbeatAt\n    agentVersion\n    driverVersion\n    cudaVersion\n    simulated\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    diskFreeBytes\n    registeredAt\n    gpus {\n      id\n      uuid\n      index\n      name\n      model {\n        key\n        name\n      }\n      vramBytes\n      pciBusId\n      powerLimitW\n      simulated\n      listing\n      rented\n      telemetry {\n        ...GpuTelemetryFields\n      }\n    }\n  }\n": typeof types.MachineFieldsFragmentDoc,
    "\n  query ProviderFleet {\n    myProvider {\n      id\n      name\n      tier\n      machines {\n        ...MachineFields\n      }\n    }\n  }\n": typeof types.ProviderFleetDocument,
    "\n  subscription MachineStatusChanged {\n    machineStatusChanged {\n      kind\n      machine {\n        ...MachineFields\n      }\n    }\n  }\n": typeof types.MachineStatusChangedDocument,
    "\n  fragment PayoutFields on Payout {\n    id\n    periodStart\n    periodEnd\n    amount\n    kind\n    destination\n    state\n    reference\n    signature\n    transactionUrl\n    paidReference\n    failure\n    createdAt\n    paidAt\n    provider {\n      id\n      name\n      applicationId\n    }\n  }\n": typeof types.PayoutFieldsFragmentDoc,
    "\n  fragment PayoutMethodFields on PayoutMethod {\n    schedule\n    kind\n    solanaAddress\n    ibanMasked\n    bic\n    accountHolder\n    changedAt\n    holdUntil\n  }\n": typeof types.PayoutMethodFieldsFragmentDoc,
    "\n  query ProviderPayouts {\n    myProvider {\n      id\n      payoutMethod {\n        ...PayoutMethodFields\n      }\n      nextPayout {\n        periodStart\n        periodEnd\n        dueAt\n        available\n        threshold\n        thresholdMet\n        heldUntil\n      }\n      earnings {\n        availableBalance\n      }\n      payouts(first: 50) {\n        ...PayoutFields\n      }\n      payoutWeeks(weeks: 12) {\n        start\n        paid\n        count\n      }\n    }\n  }\n": typeof types.ProviderPayoutsDocument,
    "\n  mutation SetPayoutMethod($input: SetPayoutMethodInput!) {\n    setPayoutMethod(input: $input) {\n      method {\n        ...PayoutMethodFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.SetPayoutMethodDocument,
    "\n  mutation RequestPayout {\n    requestPayout {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": typeof types.RequestPayoutDocument,
    "\n  fragment GpuPriceFields on GpuPrice {\n    modelKey\n    model {\n      key\n      name\n    }\n    pricePerHour\n    updatedAt\n    history {\n      pricePerHour\n      at\n    }\n  }\n": typeof types.GpuPriceFieldsFragmentDoc,
    "\n  fragment ScheduleFields on AvailabilitySchedule {\n    availability {\n      kind\n      timeZone\n      windows {\n        day\n        start\n        end\n      }\n    }\n    openNow\n    nextChangeAt\n    updatedAt\n  }\n": typeof types.ScheduleFieldsFragmentDoc,
    "\n  fragment MaintenanceWindowFields on MaintenanceWindow {\n    id\n    machineId\n    startsAt\n    endsAt\n    note\n  }\n": typeof types.MaintenanceWindowFieldsFragmentDoc,
    "\n  query ProviderPricing {\n    myProvider {\n      id\n      machines {\n        id\n        hostname\n        gpus {\n          id\n          model {\n            key\n            name\n          }\n        }\n      }\n      prices {\n        ...GpuPriceFields\n      }\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n    }\n  }\n": typeof types.ProviderPricingDocument,
    "\n  fragment MarketRegionFields on MarketRegion {\n    level\n    city\n    country\n    continent\n  }\n": typeof types.MarketRegionFieldsFragmentDoc,
    "\n  fragment PriceOutcomeFields on PriceOutcome {\n    pricePerHour\n    utilization\n    monthlyEarnings\n  }\n": typeof types.PriceOutcomeFieldsFragmentDoc,
    "\n  query PricingRecommendation($model: String!, $region: String) {\n    pricingRecommendation(model: $model, region: $region) {\n      modelKey\n      region {\n        ...MarketRegionFields\n      }\n      ownsModel\n      basis\n      market {\n        region {\n          ...MarketRegionFields\n        }\n        p10\n        p50\n        p90\n        gpuCount\n        providerCount\n      }\n      minPricePerHour\n      maxPricePerHour\n      recommended {\n        ...PriceOutcomeFields\n      }\n      current {\n        ...PriceOutcomeFields\n      }\n      curve {\n        ...PriceOutcomeFields\n      }\n      platformFeeBps\n      hoursPerMonth\n      reasons {\n        code\n        region {\n          ...MarketRegionFields\n        }\n        gpuCount\n        providerCount\n        utilization\n        gpuHours\n        weeks\n        percent\n        modelCount\n        pricePerHour\n        limitPerHour\n      }\n    }\n  }\n": typeof types.PricingRecommendationDocument,
    "\n  mutation SetGpuPrice($input: SetGpuPriceInput!) {\n    setGpuPrice(input: $input) {\n      price {\n        ...GpuPriceFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.SetGpuPriceDocument,
    "\n  mutation SetAvailabilitySchedule($input: SetAvailabilityScheduleInput!) {\n    setAvailabilitySchedule(input: $input) {\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.SetAvailabilityScheduleDocument,
    "\n  fragment AgentTokenFields on AgentToken {\n    id\n    name\n    prefix\n    createdAt\n    lastUsedAt\n    revokedAt\n    machineCount\n  }\n": typeof types.AgentTokenFieldsFragmentDoc,
    "\n  query MyProviderTokens {\n    myProvider {\n      id\n      tier\n      name\n      agentTokens {\n        ...AgentTokenFields\n      }\n    }\n  }\n": typeof types.MyProviderTokensDocument,
    "\n  mutation CreateAgentToken($name: String!) {\n    createAgentToken(name: $name) {\n      token\n      installCommand\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.CreateAgentTokenDocument,
    "\n  mutation RevokeAgentToken($id: ID!) {\n    revokeAgentToken(id: $id) {\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.RevokeAgentTokenDocument,
    "\n  fragment ProviderRentalFields on ProviderRental {\n    id\n    state\n    cause\n    machineId\n    hostname\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    gpuUuids\n    gpuIndexes\n    pricePerHour\n    earned\n    image\n    createdAt\n    startedAt\n    endedAt\n  }\n": typeof types.ProviderRentalFieldsFragmentDoc,
    "\n  query ProviderRentals {\n    myProvider {\n      id\n      rentals {\n        ...ProviderRentalFields\n      }\n    }\n  }\n": typeof types.ProviderRentalsDocument,
    "\n  subscription ProviderRentalUpdated {\n    providerRentalUpdated {\n      ...ProviderRentalFields\n    }\n  }\n": typeof types.ProviderRentalUpdatedDocument,
    "\n  fragment ReliabilityComponentsFields on ReliabilityComponents {\n    uptime\n    completion\n    consistency\n  }\n": typeof types.ReliabilityComponentsFieldsFragmentDoc,
    "\n  fragment ReliabilityFields on Reliability {\n    scored\n    score\n    components {\n      ...ReliabilityComponentsFields\n    }\n    halfLifeDays\n    windowDays\n    floor\n    belowFloor\n    trend {\n      day\n      score\n    }\n    events {\n      kind\n      machineId\n      hostname\n      at\n      endedAt\n      magnitude\n      cost\n      detail\n    }\n    projection {\n      day\n      score\n    }\n    advice\n    machines {\n      machineId\n      hostname\n      scored\n      score\n      components {\n        ...ReliabilityComponentsFields\n      }\n      belowFloor\n    }\n    asOf\n  }\n": typeof types.ReliabilityFieldsFragmentDoc,
    "\n  query ProviderReliability {\n    myProvider {\n      id\n      reliability {\n        ...ReliabilityFields\n      }\n    }\n  }\n": typeof types.ProviderReliabilityDocument,
    "\n  subscription ReliabilityUpdated {\n    reliabilityUpdated {\n      ...ReliabilityFields\n    }\n  }\n": typeof types.ReliabilityUpdatedDocument,
    "\n  fragment RentalFields on Rental {\n    id\n    state\n    cause\n    message\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    pricePerHour\n    image\n    command\n    envNames\n    location {\n      city\n      country\n      region\n    }\n    tier\n    createdAt\n    startedAt\n    endedAt\n    endsBy\n    exitCode\n    end\n    billedSeconds\n    billedUntil\n    charged\n    refunded\n  }\n": typeof types.RentalFieldsFragmentDoc,
    "\n  query MyRentals($first: Int, $after: String) {\n    myRentals(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...RentalFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.MyRentalsDocument,
    "\n  query Rental($id: ID!) {\n    rental(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n": typeof types.RentalDocument,
    "\n  subscription RentalsUpdated {\n    rentalUpdated {\n      ...RentalFields\n    }\n  }\n": typeof types.RentalsUpdatedDocument,
    "\n  subscription RentalUpdated($id: ID!) {\n    rentalUpdated(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n": typeof types.RentalUpdatedDocument,
    "\n  mutation StopRental($id: ID!) {\n    stopRental(id: $id) {\n      rental {\n        ...RentalFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": typeof types.StopRentalDocument,
    "\n  query RentalsMonthTotal {\n    myRentalsMonthTotal {\n      monthStart\n      charged\n    }\n  }\n": typeof types.RentalsMonthTotalDocument,
    "\n  query Statement($first: Int, $after: String) {\n    myStatement(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          postedAt\n          kind\n          reference\n          rentalId\n          amount\n          balance\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      balance\n    }\n  }\n": typeof types.StatementDocument,
    "\n  query StatementCsv {\n    myStatementCsv\n  }\n": typeof types.StatementCsvDocument,
};
const documents: Documents = {
    "\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    language\n    createdAt\n  }\n": types.UserFieldsFragmentDoc,
    "\n  fragment AuthPayloadFields on AuthPayload {\n    user {\n      ...UserFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n    confirmationSent\n  }\n": types.AuthPayloadFieldsFragmentDoc,
    "\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n": types.MeDocument,
    "\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n": types.SignUpDocument,
    "\n  mutation ConfirmEmail($token: String!) {\n    confirmEmail(token: $token) {\n      ...AuthPayloadFields\n    }\n  }\n": types.ConfirmEmailDocument,
    "\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n": types.LogInDocument,
    "\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n": types.LogOutDocument,
    "\n  mutation SetLanguage($language: Language!) {\n    setLanguage(language: $language) {\n      user {\n        id\n        language\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.SetLanguageDocument,
    "\n  fragment QueueRowFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        key\n        name\n      }\n      otherModel\n      quantity\n    }\n    suggestedTier {\n      tier\n    }\n    tier\n    submittedAt\n    updatedAt\n  }\n": types.QueueRowFieldsFragmentDoc,
    "\n  query ApplicationQueue($status: ApplicationStatus, $first: Int!, $after: String) {\n    providerApplications(status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...QueueRowFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n": types.ApplicationQueueDocument,
    "\n  query ApplicationCounts {\n    providerApplicationCounts {\n      status\n      count\n    }\n  }\n": types.ApplicationCountsDocument,
    "\n  subscription ApplicationQueueChanged {\n    providerApplicationChanged {\n      initial\n      application {\n        ...QueueRowFields\n      }\n    }\n  }\n": types.ApplicationQueueChangedDocument,
    "\n  query ApplicationReview($id: ID!) {\n    providerApplication(id: $id) {\n      ...ApplicationFields\n    }\n  }\n": types.ApplicationReviewDocument,
    "\n  subscription ApplicationReviewChanged($id: ID!) {\n    providerApplicationChanged(id: $id) {\n      initial\n      application {\n        ...ApplicationFields\n      }\n    }\n  }\n": types.ApplicationReviewChangedDocument,
    "\n  mutation ApproveApplication($id: ID!, $tier: ProviderTier, $message: String) {\n    approveProviderApplication(id: $id, tier: $tier, message: $message) {\n      application {\n        ...ApplicationFields\n      }\n      provider {\n        id\n        tier\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.ApproveApplicationDocument,
    "\n  mutation RejectApplication($id: ID!, $reason: String!) {\n    rejectProviderApplication(id: $id, reason: $reason) {\n      ...ApplicationPayloadFields\n    }\n  }\n": types.RejectApplicationDocument,
    "\n  mutation RequestApplicationInfo($id: ID!, $message: String!) {\n    requestApplicationInfo(id: $id, message: $message) {\n      ...ApplicationPayloadFields\n    }\n  }\n": types.RequestApplicationInfoDocument,
    "\n  query AdminPayouts($state: PayoutState, $first: Int) {\n    payouts(state: $state, first: $first) {\n      ...PayoutFields\n    }\n    payoutTotals {\n      state\n      count\n      amount\n    }\n  }\n": types.AdminPayoutsDocument,
    "\n  mutation MarkPayoutPaid($input: SettlePayoutInput!) {\n    markPayoutPaid(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.MarkPayoutPaidDocument,
    "\n  mutation MarkPayoutFailed($input: SettlePayoutInput!) {\n    markPayoutFailed(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.MarkPayoutFailedDocument,
    "\n  mutation CreateBankPayoutFile {\n    createBankPayoutFile {\n      file\n      payouts {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.CreateBankPayoutFileDocument,
    "\n  mutation CreditFunds($input: CreditFundsInput!) {\n    creditFunds(input: $input) {\n      balance\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.CreditFundsDocument,
    "\n  query ProvidersByReliability($first: Int!) {\n    providersByReliability(first: $first) {\n      providerId\n      applicationId\n      name\n      components {\n        uptime\n        completion\n        consistency\n      }\n      score\n      floor\n      belowFloor\n    }\n  }\n": types.ProvidersByReliabilityDocument,
    "\n  fragment UserErrorFields on UserError {\n    field\n    message\n    code\n  }\n": types.UserErrorFieldsFragmentDoc,
    "\n  fragment BenchmarkFigureFields on BenchmarkFigure {\n    metric\n    supported\n    measured\n    reference\n    expected\n    minimum\n    ratio\n    passed\n  }\n": types.BenchmarkFigureFieldsFragmentDoc,
    "\n  fragment GpuBenchmarkFields on GpuBenchmark {\n    id\n    runId\n    reason\n    at\n    simulated\n    outcome\n    error\n    score\n    passed\n    consistency\n  }\n": types.GpuBenchmarkFieldsFragmentDoc,
    "\n  fragment BenchmarkGuidanceFields on BenchmarkGuidance {\n    code\n    message\n    params {\n      key\n      value\n    }\n  }\n": types.BenchmarkGuidanceFieldsFragmentDoc,
    "\n  fragment BenchmarkRunFields on BenchmarkRun {\n    id\n    runId\n    reason\n    state\n    requestedAt\n    startedAt\n    finishedAt\n    simulated\n    steps {\n      part\n      gpuUuid\n      outcome\n    }\n  }\n": types.BenchmarkRunFieldsFragmentDoc,
    "\n  fragment MachineBenchmarksFields on MachineBenchmarks {\n    machineId\n    hostname\n    requestAllowedAt\n    nextScheduledAt\n    pendingRun {\n      ...BenchmarkRunFields\n    }\n    latestRun {\n      ...BenchmarkRunFields\n      network {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      storage {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n    }\n    gpus {\n      gpuId\n      gpuUuid\n      listing\n      score\n      listingChangedAt\n      shortfalls {\n        ...BenchmarkFigureFields\n      }\n      guidance {\n        ...BenchmarkGuidanceFields\n      }\n      latest {\n        ...GpuBenchmarkFields\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      history {\n        ...GpuBenchmarkFields\n      }\n    }\n  }\n": types.MachineBenchmarksFieldsFragmentDoc,
    "\n  query ProviderBenchmarks {\n    myProvider {\n      id\n      name\n      machines {\n        id\n        gpus {\n          id\n          index\n          name\n          model {\n            name\n          }\n        }\n      }\n      benchmarks {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n": types.ProviderBenchmarksDocument,
    "\n  subscription BenchmarkUpdated {\n    benchmarkUpdated {\n      initial\n      machine {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n": types.BenchmarkUpdatedDocument,
    "\n  mutation RequestBenchmark($input: RequestBenchmarkInput!) {\n    requestBenchmark(input: $input) {\n      run {\n        ...BenchmarkRunFields\n      }\n      requestAllowedAt\n      userErrors {\n        field\n        code\n        message\n      }\n    }\n  }\n": types.RequestBenchmarkDocument,
    "\n  fragment EarningsFields on Earnings {\n    timeZone\n    asOf\n    accrualPerHour\n    period {\n      kind\n      start\n      end\n      gross\n      fees\n      net\n    }\n    byGpu {\n      gpuId\n      gpuUuid\n      gpuIndex\n      machineId\n      hostname\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    byModel {\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    availableBalance\n    pendingPayouts {\n      ...PayoutFields\n    }\n  }\n": types.EarningsFieldsFragmentDoc,
    "\n  query ProviderEarnings {\n    myProvider {\n      id\n      earnings {\n        ...EarningsFields\n      }\n    }\n  }\n": types.ProviderEarningsDocument,
    "\n  subscription EarningsUpdated {\n    earningsUpdated {\n      ...EarningsFields\n    }\n  }\n": types.EarningsUpdatedDocument,
    "\n  query EarningsHistory($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        timeZone\n        history(from: $from, to: $to, groupBy: $groupBy) {\n          start\n          gross\n          fees\n          net\n        }\n      }\n    }\n  }\n": types.EarningsHistoryDocument,
    "\n  query EarningsHistoryCsv($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        historyCsv(from: $from, to: $to, groupBy: $groupBy)\n      }\n    }\n  }\n": types.EarningsHistoryCsvDocument,
    "\n  query MyFunds {\n    myFunds {\n      balance\n      perHour\n      runsOutAt\n    }\n  }\n": types.MyFundsDocument,
    "\n  fragment DepositFields on Deposit {\n    id\n    state\n    amount\n    credited\n    createdAt\n    expiresAt\n    payment {\n      url\n      recipient\n      mint\n      amount\n      reference\n    }\n    transfers {\n      signature\n      state\n      amount\n      late\n      issue\n      seenAt\n      settledAt\n      explorerUrl\n    }\n  }\n": types.DepositFieldsFragmentDoc,
    "\n  query Deposits($first: Int) {\n    depositTerms {\n      available\n      minimum\n      maximum\n      expiresInSeconds\n    }\n    myDeposits(first: $first) {\n      ...DepositFields\n    }\n  }\n": types.DepositsDocument,
    "\n  mutation CreateDeposit($input: CreateDepositInput!) {\n    createDeposit(input: $input) {\n      deposit {\n        ...DepositFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.CreateDepositDocument,
    "\n  subscription DepositUpdated {\n    depositUpdated {\n      ...DepositFields\n    }\n  }\n": types.DepositUpdatedDocument,
    "\n  fragment ListingFields on Listing {\n    id\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    vramGb\n    pricePerHour\n    performanceScore\n    reliabilityScore\n    uptime\n    tier\n    commitmentMonths\n    location {\n      city\n      country\n      region\n    }\n    rank\n    nextMaintenanceAt\n    simulated\n    providerName\n    driverVersion\n    cudaVersion\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    performance {\n      metric\n      measuredTflops\n      datasheetTflops\n      ratio\n      tflopsPerDollar\n    }\n    measured {\n      at\n      networkDownMbps\n      networkUpMbps\n      storageReadMBps\n      storageWriteMBps\n    }\n    scheduleClosesAt\n    reliabilityParts {\n      uptime\n      completion\n      consistency\n    }\n  }\n": types.ListingFieldsFragmentDoc,
    "\n  query Marketplace($filter: MarketplaceFilter, $sort: MarketplaceSort, $first: Int, $after: String) {\n    marketplace(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...ListingFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.MarketplaceDocument,
    "\n  query MarketplaceModels {\n    supportedGpuModels {\n      key\n      name\n      family\n      vramGb\n    }\n  }\n": types.MarketplaceModelsDocument,
    "\n  mutation StartRental($input: StartRentalInput!) {\n    startRental(input: $input) {\n      rental {\n        id\n        state\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.StartRentalDocument,
    "\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n": types.NotificationFieldsFragmentDoc,
    "\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n": types.NotificationsDocument,
    "\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.MarkNotificationsReadDocument,
    "\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n": types.NotificationAddedDocument,
    "\n  fragment GpuModelFields on GpuModel {\n    key\n    family\n    name\n    variant\n    vramGb\n  }\n": types.GpuModelFieldsFragmentDoc,
    "\n  fragment ApplicationFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        ...GpuModelFields\n      }\n      otherModel\n      quantity\n      ramGb\n      uploadGbps\n      downloadGbps\n      availability {\n        kind\n        timeZone\n        windows {\n          day\n          start\n          end\n        }\n      }\n      location {\n        city\n        country\n        region\n      }\n    }\n    upsProtected\n    commitmentMonths\n    maintenanceNotes\n    suggestedTier {\n      tier\n      reasons\n      reasonCodes\n    }\n    tier\n    history {\n      action\n      actor {\n        name\n        isAdmin\n      }\n      message\n      tier\n      at\n      # Admins only (null for the applicant): what a resubmission changed.\n      changes {\n        field\n        before\n        after\n      }\n    }\n    submittedAt\n    updatedAt\n  }\n": types.ApplicationFieldsFragmentDoc,
    "\n  fragment ApplicationPayloadFields on ProviderApplicationPayload {\n    application {\n      ...ApplicationFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n  }\n": types.ApplicationPayloadFieldsFragmentDoc,
    "\n  query SupportedGpuModels {\n    supportedGpuModels {\n      ...GpuModelFields\n    }\n  }\n": types.SupportedGpuModelsDocument,
    "\n  query MyApplication {\n    myApplication {\n      ...ApplicationFields\n    }\n  }\n": types.MyApplicationDocument,
    "\n  mutation SubmitProviderApplication($input: ProviderApplicationInput!) {\n    submitProviderApplication(input: $input) {\n      ...ApplicationPayloadFields\n    }\n  }\n": types.SubmitProviderApplicationDocument,
    "\n  mutation UpdateProviderApplication($id: ID!, $input: ProviderApplicationInput!, $reply: String) {\n    updateProviderApplication(id: $id, input: $input, reply: $reply) {\n      ...ApplicationPayloadFields\n    }\n  }\n": types.UpdateProviderApplicationDocument,
    "\n  query ProviderProgress {\n    myProvider {\n      id\n      progress {\n        step\n        reachedAt\n      }\n    }\n  }\n": types.ProviderProgressDocument,
    "\n  fragment GpuTelemetryFields on GpuTelemetry {\n    at\n    utilizationPct\n    memoryUsedBytes\n    temperatureC\n    powerDrawW\n    smClockMHz\n    throttleReasons\n    eccCorrected\n    eccUncorrected\n    recentUtilizationPct\n  }\n": types.GpuTelemetryFieldsFragmentDoc,
    "\n  fragment MachineFields on Machine {\n    id\n    machineId\n    heartbeatIntervalSeconds\n    hostname\n    status\n    offlineReason\n    statusChangedAt\n    lastHeartbeatAt\n    agentVersion\n    driverVersion\n    cudaVersion\n    simulated\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    diskFreeBytes\n    registeredAt\n    gpus {\n      id\n      uuid\n      index\n      name\n      model {\n        key\n        name\n      }\n      vramBytes\n      pciBusId\n      powerLimitW\n      simulated\n      listing\n      rented\n      telemetry {\n        ...GpuTelemetryFields\n      }\n    }\n  }\n": types.MachineFieldsFragmentDoc,
    "\n  query ProviderFleet {\n    myProvider {\n      id\n      name\n      tier\n      machines {\n        ...MachineFields\n      }\n    }\n  }\n": types.ProviderFleetDocument,
    "\n  subscription MachineStatusChanged {\n    machineStatusChanged {\n      kind\n      machine {\n        ...MachineFields\n      }\n    }\n  }\n": types.MachineStatusChangedDocument,
    "\n  fragment PayoutFields on Payout {\n    id\n    periodStart\n    periodEnd\n    amount\n    kind\n    destination\n    state\n    reference\n    signature\n    transactionUrl\n    paidReference\n    failure\n    createdAt\n    paidAt\n    provider {\n      id\n      name\n      applicationId\n    }\n  }\n": types.PayoutFieldsFragmentDoc,
    "\n  fragment PayoutMethodFields on PayoutMethod {\n    schedule\n    kind\n    solanaAddress\n    ibanMasked\n    bic\n    accountHolder\n    changedAt\n    holdUntil\n  }\n": types.PayoutMethodFieldsFragmentDoc,
    "\n  query ProviderPayouts {\n    myProvider {\n      id\n      payoutMethod {\n        ...PayoutMethodFields\n      }\n      nextPayout {\n        periodStart\n        periodEnd\n        dueAt\n        available\n        threshold\n        thresholdMet\n        heldUntil\n      }\n      earnings {\n        availableBalance\n      }\n      payouts(first: 50) {\n        ...PayoutFields\n      }\n      payoutWeeks(weeks: 12) {\n        start\n        paid\n        count\n      }\n    }\n  }\n": types.ProviderPayoutsDocument,
    "\n  mutation SetPayoutMethod($input: SetPayoutMethodInput!) {\n    setPayoutMethod(input: $input) {\n      method {\n        ...PayoutMethodFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.SetPayoutMethodDocument,
    "\n  mutation RequestPayout {\n    requestPayout {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n": types.RequestPayoutDocument,
    "\n  fragment GpuPriceFields on GpuPrice {\n    modelKey\n    model {\n      key\n      name\n    }\n    pricePerHour\n    updatedAt\n    history {\n      pricePerHour\n      at\n    }\n  }\n": types.GpuPriceFieldsFragmentDoc,
    "\n  fragment ScheduleFields on AvailabilitySchedule {\n    availability {\n      kind\n      timeZone\n      windows {\n        day\n        start\n        end\n      }\n    }\n    openNow\n    nextChangeAt\n    updatedAt\n  }\n": types.ScheduleFieldsFragmentDoc,
    "\n  fragment MaintenanceWindowFields on MaintenanceWindow {\n    id\n    machineId\n    startsAt\n    endsAt\n    note\n  }\n": types.MaintenanceWindowFieldsFragmentDoc,
    "\n  query ProviderPricing {\n    myProvider {\n      id\n      machines {\n        id\n        hostname\n        gpus {\n          id\n          model {\n            key\n            name\n          }\n        }\n      }\n      prices {\n        ...GpuPriceFields\n      }\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n    }\n  }\n": types.ProviderPricingDocument,
    "\n  fragment MarketRegionFields on MarketRegion {\n    level\n    city\n    country\n    continent\n  }\n": types.MarketRegionFieldsFragmentDoc,
    "\n  fragment PriceOutcomeFields on PriceOutcome {\n    pricePerHour\n    utilization\n    monthlyEarnings\n  }\n": types.PriceOutcomeFieldsFragmentDoc,
    "\n  query PricingRecommendation($model: String!, $region: String) {\n    pricingRecommendation(model: $model, region: $region) {\n      modelKey\n      region {\n        ...MarketRegionFields\n      }\n      ownsModel\n      basis\n      market {\n        region {\n          ...MarketRegionFields\n        }\n        p10\n        p50\n        p90\n        gpuCount\n        providerCount\n      }\n      minPricePerHour\n      maxPricePerHour\n      recommended {\n        ...PriceOutcomeFields\n      }\n      current {\n        ...PriceOutcomeFields\n      }\n      curve {\n        ...PriceOutcomeFields\n      }\n      platformFeeBps\n      hoursPerMonth\n      reasons {\n        code\n        region {\n          ...MarketRegionFields\n        }\n        gpuCount\n        providerCount\n        utilization\n        gpuHours\n        weeks\n        percent\n        modelCount\n        pricePerHour\n        limitPerHour\n      }\n    }\n  }\n": types.PricingRecommendationDocument,
    "\n  mutation SetGpuPrice($input: SetGpuPriceInput!) {\n    setGpuPrice(input: $input) {\n      price {\n        ...GpuPriceFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.SetGpuPriceDocument,
    "\n  mutation SetAvailabilitySchedule($input: SetAvailabilityScheduleInput!) {\n    setAvailabilitySchedule(input: $input) {\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.SetAvailabilityScheduleDocument,
    "\n  fragment AgentTokenFields on AgentToken {\n    id\n    name\n    prefix\n    createdAt\n    lastUsedAt\n    revokedAt\n    machineCount\n  }\n": types.AgentTokenFieldsFragmentDoc,
    "\n  query MyProviderTokens {\n    myProvider {\n      id\n      tier\n      name\n      agentTokens {\n        ...AgentTokenFields\n      }\n    }\n  }\n": types.MyProviderTokensDocument,
    "\n  mutation CreateAgentToken($name: String!) {\n    createAgentToken(name: $name) {\n      token\n      installCommand\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.CreateAgentTokenDocument,
    "\n  mutation RevokeAgentToken($id: ID!) {\n    revokeAgentToken(id: $id) {\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.RevokeAgentTokenDocument,
    "\n  fragment ProviderRentalFields on ProviderRental {\n    id\n    state\n    cause\n    machineId\n    hostname\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    gpuUuids\n    gpuIndexes\n    pricePerHour\n    earned\n    image\n    createdAt\n    startedAt\n    endedAt\n  }\n": types.ProviderRentalFieldsFragmentDoc,
    "\n  query ProviderRentals {\n    myProvider {\n      id\n      rentals {\n        ...ProviderRentalFields\n      }\n    }\n  }\n": types.ProviderRentalsDocument,
    "\n  subscription ProviderRentalUpdated {\n    providerRentalUpdated {\n      ...ProviderRentalFields\n    }\n  }\n": types.ProviderRentalUpdatedDocument,
    "\n  fragment ReliabilityComponentsFields on ReliabilityComponents {\n    uptime\n    completion\n    consistency\n  }\n": types.ReliabilityComponentsFieldsFragmentDoc,
    "\n  fragment ReliabilityFields on Reliability {\n    scored\n    score\n    components {\n      ...ReliabilityComponentsFields\n    }\n    halfLifeDays\n    windowDays\n    floor\n    belowFloor\n    trend {\n      day\n      score\n    }\n    events {\n      kind\n      machineId\n      hostname\n      at\n      endedAt\n      magnitude\n      cost\n      detail\n    }\n    projection {\n      day\n      score\n    }\n    advice\n    machines {\n      machineId\n      hostname\n      scored\n      score\n      components {\n        ...ReliabilityComponentsFields\n      }\n      belowFloor\n    }\n    asOf\n  }\n": types.ReliabilityFieldsFragmentDoc,
    "\n  query ProviderReliability {\n    myProvider {\n      id\n      reliability {\n        ...ReliabilityFields\n      }\n    }\n  }\n": types.ProviderReliabilityDocument,
    "\n  subscription ReliabilityUpdated {\n    reliabilityUpdated {\n      ...ReliabilityFields\n    }\n  }\n": types.ReliabilityUpdatedDocument,
    "\n  fragment RentalFields on Rental {\n    id\n    state\n    cause\n    message\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    pricePerHour\n    image\n    command\n    envNames\n    location {\n      city\n      country\n      region\n    }\n    tier\n    createdAt\n    startedAt\n    endedAt\n    endsBy\n    exitCode\n    end\n    billedSeconds\n    billedUntil\n    charged\n    refunded\n  }\n": types.RentalFieldsFragmentDoc,
    "\n  query MyRentals($first: Int, $after: String) {\n    myRentals(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...RentalFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.MyRentalsDocument,
    "\n  query Rental($id: ID!) {\n    rental(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n": types.RentalDocument,
    "\n  subscription RentalsUpdated {\n    rentalUpdated {\n      ...RentalFields\n    }\n  }\n": types.RentalsUpdatedDocument,
    "\n  subscription RentalUpdated($id: ID!) {\n    rentalUpdated(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n": types.RentalUpdatedDocument,
    "\n  mutation StopRental($id: ID!) {\n    stopRental(id: $id) {\n      rental {\n        ...RentalFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n": types.StopRentalDocument,
    "\n  query RentalsMonthTotal {\n    myRentalsMonthTotal {\n      monthStart\n      charged\n    }\n  }\n": types.RentalsMonthTotalDocument,
    "\n  query Statement($first: Int, $after: String) {\n    myStatement(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          postedAt\n          kind\n          reference\n          rentalId\n          amount\n          balance\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      balance\n    }\n  }\n": types.StatementDocument,
    "\n  query StatementCsv {\n    myStatementCsv\n  }\n": types.StatementCsvDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    language\n    createdAt\n  }\n"): (typeof documents)["\n  fragment UserFields on User {\n    id\n    email\n    name\n    roles\n    language\n    createdAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AuthPayloadFields on AuthPayload {\n    user {\n      ...UserFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n    confirmationSent\n  }\n"): (typeof documents)["\n  fragment AuthPayloadFields on AuthPayload {\n    user {\n      ...UserFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n    confirmationSent\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n"): (typeof documents)["\n  query Me {\n    me {\n      ...UserFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n"): (typeof documents)["\n  mutation SignUp($input: SignUpInput!) {\n    signUp(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConfirmEmail($token: String!) {\n    confirmEmail(token: $token) {\n      ...AuthPayloadFields\n    }\n  }\n"): (typeof documents)["\n  mutation ConfirmEmail($token: String!) {\n    confirmEmail(token: $token) {\n      ...AuthPayloadFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n"): (typeof documents)["\n  mutation LogIn($input: LogInInput!) {\n    logIn(input: $input) {\n      ...AuthPayloadFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n"): (typeof documents)["\n  mutation LogOut {\n    logOut {\n      ok\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetLanguage($language: Language!) {\n    setLanguage(language: $language) {\n      user {\n        id\n        language\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation SetLanguage($language: Language!) {\n    setLanguage(language: $language) {\n      user {\n        id\n        language\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment QueueRowFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        key\n        name\n      }\n      otherModel\n      quantity\n    }\n    suggestedTier {\n      tier\n    }\n    tier\n    submittedAt\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment QueueRowFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        key\n        name\n      }\n      otherModel\n      quantity\n    }\n    suggestedTier {\n      tier\n    }\n    tier\n    submittedAt\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApplicationQueue($status: ApplicationStatus, $first: Int!, $after: String) {\n    providerApplications(status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...QueueRowFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"): (typeof documents)["\n  query ApplicationQueue($status: ApplicationStatus, $first: Int!, $after: String) {\n    providerApplications(status: $status, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...QueueRowFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      totalCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApplicationCounts {\n    providerApplicationCounts {\n      status\n      count\n    }\n  }\n"): (typeof documents)["\n  query ApplicationCounts {\n    providerApplicationCounts {\n      status\n      count\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ApplicationQueueChanged {\n    providerApplicationChanged {\n      initial\n      application {\n        ...QueueRowFields\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ApplicationQueueChanged {\n    providerApplicationChanged {\n      initial\n      application {\n        ...QueueRowFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApplicationReview($id: ID!) {\n    providerApplication(id: $id) {\n      ...ApplicationFields\n    }\n  }\n"): (typeof documents)["\n  query ApplicationReview($id: ID!) {\n    providerApplication(id: $id) {\n      ...ApplicationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ApplicationReviewChanged($id: ID!) {\n    providerApplicationChanged(id: $id) {\n      initial\n      application {\n        ...ApplicationFields\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ApplicationReviewChanged($id: ID!) {\n    providerApplicationChanged(id: $id) {\n      initial\n      application {\n        ...ApplicationFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApproveApplication($id: ID!, $tier: ProviderTier, $message: String) {\n    approveProviderApplication(id: $id, tier: $tier, message: $message) {\n      application {\n        ...ApplicationFields\n      }\n      provider {\n        id\n        tier\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation ApproveApplication($id: ID!, $tier: ProviderTier, $message: String) {\n    approveProviderApplication(id: $id, tier: $tier, message: $message) {\n      application {\n        ...ApplicationFields\n      }\n      provider {\n        id\n        tier\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RejectApplication($id: ID!, $reason: String!) {\n    rejectProviderApplication(id: $id, reason: $reason) {\n      ...ApplicationPayloadFields\n    }\n  }\n"): (typeof documents)["\n  mutation RejectApplication($id: ID!, $reason: String!) {\n    rejectProviderApplication(id: $id, reason: $reason) {\n      ...ApplicationPayloadFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RequestApplicationInfo($id: ID!, $message: String!) {\n    requestApplicationInfo(id: $id, message: $message) {\n      ...ApplicationPayloadFields\n    }\n  }\n"): (typeof documents)["\n  mutation RequestApplicationInfo($id: ID!, $message: String!) {\n    requestApplicationInfo(id: $id, message: $message) {\n      ...ApplicationPayloadFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AdminPayouts($state: PayoutState, $first: Int) {\n    payouts(state: $state, first: $first) {\n      ...PayoutFields\n    }\n    payoutTotals {\n      state\n      count\n      amount\n    }\n  }\n"): (typeof documents)["\n  query AdminPayouts($state: PayoutState, $first: Int) {\n    payouts(state: $state, first: $first) {\n      ...PayoutFields\n    }\n    payoutTotals {\n      state\n      count\n      amount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkPayoutPaid($input: SettlePayoutInput!) {\n    markPayoutPaid(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation MarkPayoutPaid($input: SettlePayoutInput!) {\n    markPayoutPaid(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkPayoutFailed($input: SettlePayoutInput!) {\n    markPayoutFailed(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation MarkPayoutFailed($input: SettlePayoutInput!) {\n    markPayoutFailed(input: $input) {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateBankPayoutFile {\n    createBankPayoutFile {\n      file\n      payouts {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation CreateBankPayoutFile {\n    createBankPayoutFile {\n      file\n      payouts {\n        ...PayoutFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreditFunds($input: CreditFundsInput!) {\n    creditFunds(input: $input) {\n      balance\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation CreditFunds($input: CreditFundsInput!) {\n    creditFunds(input: $input) {\n      balance\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProvidersByReliability($first: Int!) {\n    providersByReliability(first: $first) {\n      providerId\n      applicationId\n      name\n      components {\n        uptime\n        completion\n        consistency\n      }\n      score\n      floor\n      belowFloor\n    }\n  }\n"): (typeof documents)["\n  query ProvidersByReliability($first: Int!) {\n    providersByReliability(first: $first) {\n      providerId\n      applicationId\n      name\n      components {\n        uptime\n        completion\n        consistency\n      }\n      score\n      floor\n      belowFloor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment UserErrorFields on UserError {\n    field\n    message\n    code\n  }\n"): (typeof documents)["\n  fragment UserErrorFields on UserError {\n    field\n    message\n    code\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment BenchmarkFigureFields on BenchmarkFigure {\n    metric\n    supported\n    measured\n    reference\n    expected\n    minimum\n    ratio\n    passed\n  }\n"): (typeof documents)["\n  fragment BenchmarkFigureFields on BenchmarkFigure {\n    metric\n    supported\n    measured\n    reference\n    expected\n    minimum\n    ratio\n    passed\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment GpuBenchmarkFields on GpuBenchmark {\n    id\n    runId\n    reason\n    at\n    simulated\n    outcome\n    error\n    score\n    passed\n    consistency\n  }\n"): (typeof documents)["\n  fragment GpuBenchmarkFields on GpuBenchmark {\n    id\n    runId\n    reason\n    at\n    simulated\n    outcome\n    error\n    score\n    passed\n    consistency\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment BenchmarkGuidanceFields on BenchmarkGuidance {\n    code\n    message\n    params {\n      key\n      value\n    }\n  }\n"): (typeof documents)["\n  fragment BenchmarkGuidanceFields on BenchmarkGuidance {\n    code\n    message\n    params {\n      key\n      value\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment BenchmarkRunFields on BenchmarkRun {\n    id\n    runId\n    reason\n    state\n    requestedAt\n    startedAt\n    finishedAt\n    simulated\n    steps {\n      part\n      gpuUuid\n      outcome\n    }\n  }\n"): (typeof documents)["\n  fragment BenchmarkRunFields on BenchmarkRun {\n    id\n    runId\n    reason\n    state\n    requestedAt\n    startedAt\n    finishedAt\n    simulated\n    steps {\n      part\n      gpuUuid\n      outcome\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment MachineBenchmarksFields on MachineBenchmarks {\n    machineId\n    hostname\n    requestAllowedAt\n    nextScheduledAt\n    pendingRun {\n      ...BenchmarkRunFields\n    }\n    latestRun {\n      ...BenchmarkRunFields\n      network {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      storage {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n    }\n    gpus {\n      gpuId\n      gpuUuid\n      listing\n      score\n      listingChangedAt\n      shortfalls {\n        ...BenchmarkFigureFields\n      }\n      guidance {\n        ...BenchmarkGuidanceFields\n      }\n      latest {\n        ...GpuBenchmarkFields\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      history {\n        ...GpuBenchmarkFields\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment MachineBenchmarksFields on MachineBenchmarks {\n    machineId\n    hostname\n    requestAllowedAt\n    nextScheduledAt\n    pendingRun {\n      ...BenchmarkRunFields\n    }\n    latestRun {\n      ...BenchmarkRunFields\n      network {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      storage {\n        outcome\n        error\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n    }\n    gpus {\n      gpuId\n      gpuUuid\n      listing\n      score\n      listingChangedAt\n      shortfalls {\n        ...BenchmarkFigureFields\n      }\n      guidance {\n        ...BenchmarkGuidanceFields\n      }\n      latest {\n        ...GpuBenchmarkFields\n        figures {\n          ...BenchmarkFigureFields\n        }\n      }\n      history {\n        ...GpuBenchmarkFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderBenchmarks {\n    myProvider {\n      id\n      name\n      machines {\n        id\n        gpus {\n          id\n          index\n          name\n          model {\n            name\n          }\n        }\n      }\n      benchmarks {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderBenchmarks {\n    myProvider {\n      id\n      name\n      machines {\n        id\n        gpus {\n          id\n          index\n          name\n          model {\n            name\n          }\n        }\n      }\n      benchmarks {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription BenchmarkUpdated {\n    benchmarkUpdated {\n      initial\n      machine {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription BenchmarkUpdated {\n    benchmarkUpdated {\n      initial\n      machine {\n        ...MachineBenchmarksFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RequestBenchmark($input: RequestBenchmarkInput!) {\n    requestBenchmark(input: $input) {\n      run {\n        ...BenchmarkRunFields\n      }\n      requestAllowedAt\n      userErrors {\n        field\n        code\n        message\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation RequestBenchmark($input: RequestBenchmarkInput!) {\n    requestBenchmark(input: $input) {\n      run {\n        ...BenchmarkRunFields\n      }\n      requestAllowedAt\n      userErrors {\n        field\n        code\n        message\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment EarningsFields on Earnings {\n    timeZone\n    asOf\n    accrualPerHour\n    period {\n      kind\n      start\n      end\n      gross\n      fees\n      net\n    }\n    byGpu {\n      gpuId\n      gpuUuid\n      gpuIndex\n      machineId\n      hostname\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    byModel {\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    availableBalance\n    pendingPayouts {\n      ...PayoutFields\n    }\n  }\n"): (typeof documents)["\n  fragment EarningsFields on Earnings {\n    timeZone\n    asOf\n    accrualPerHour\n    period {\n      kind\n      start\n      end\n      gross\n      fees\n      net\n    }\n    byGpu {\n      gpuId\n      gpuUuid\n      gpuIndex\n      machineId\n      hostname\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    byModel {\n      modelKey\n      model {\n        key\n        name\n      }\n      net\n    }\n    availableBalance\n    pendingPayouts {\n      ...PayoutFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderEarnings {\n    myProvider {\n      id\n      earnings {\n        ...EarningsFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderEarnings {\n    myProvider {\n      id\n      earnings {\n        ...EarningsFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription EarningsUpdated {\n    earningsUpdated {\n      ...EarningsFields\n    }\n  }\n"): (typeof documents)["\n  subscription EarningsUpdated {\n    earningsUpdated {\n      ...EarningsFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EarningsHistory($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        timeZone\n        history(from: $from, to: $to, groupBy: $groupBy) {\n          start\n          gross\n          fees\n          net\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query EarningsHistory($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        timeZone\n        history(from: $from, to: $to, groupBy: $groupBy) {\n          start\n          gross\n          fees\n          net\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query EarningsHistoryCsv($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        historyCsv(from: $from, to: $to, groupBy: $groupBy)\n      }\n    }\n  }\n"): (typeof documents)["\n  query EarningsHistoryCsv($from: DateTime!, $to: DateTime!, $groupBy: EarningsGrouping!) {\n    myProvider {\n      id\n      earnings {\n        historyCsv(from: $from, to: $to, groupBy: $groupBy)\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyFunds {\n    myFunds {\n      balance\n      perHour\n      runsOutAt\n    }\n  }\n"): (typeof documents)["\n  query MyFunds {\n    myFunds {\n      balance\n      perHour\n      runsOutAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment DepositFields on Deposit {\n    id\n    state\n    amount\n    credited\n    createdAt\n    expiresAt\n    payment {\n      url\n      recipient\n      mint\n      amount\n      reference\n    }\n    transfers {\n      signature\n      state\n      amount\n      late\n      issue\n      seenAt\n      settledAt\n      explorerUrl\n    }\n  }\n"): (typeof documents)["\n  fragment DepositFields on Deposit {\n    id\n    state\n    amount\n    credited\n    createdAt\n    expiresAt\n    payment {\n      url\n      recipient\n      mint\n      amount\n      reference\n    }\n    transfers {\n      signature\n      state\n      amount\n      late\n      issue\n      seenAt\n      settledAt\n      explorerUrl\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Deposits($first: Int) {\n    depositTerms {\n      available\n      minimum\n      maximum\n      expiresInSeconds\n    }\n    myDeposits(first: $first) {\n      ...DepositFields\n    }\n  }\n"): (typeof documents)["\n  query Deposits($first: Int) {\n    depositTerms {\n      available\n      minimum\n      maximum\n      expiresInSeconds\n    }\n    myDeposits(first: $first) {\n      ...DepositFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateDeposit($input: CreateDepositInput!) {\n    createDeposit(input: $input) {\n      deposit {\n        ...DepositFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation CreateDeposit($input: CreateDepositInput!) {\n    createDeposit(input: $input) {\n      deposit {\n        ...DepositFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription DepositUpdated {\n    depositUpdated {\n      ...DepositFields\n    }\n  }\n"): (typeof documents)["\n  subscription DepositUpdated {\n    depositUpdated {\n      ...DepositFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ListingFields on Listing {\n    id\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    vramGb\n    pricePerHour\n    performanceScore\n    reliabilityScore\n    uptime\n    tier\n    commitmentMonths\n    location {\n      city\n      country\n      region\n    }\n    rank\n    nextMaintenanceAt\n    simulated\n    providerName\n    driverVersion\n    cudaVersion\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    performance {\n      metric\n      measuredTflops\n      datasheetTflops\n      ratio\n      tflopsPerDollar\n    }\n    measured {\n      at\n      networkDownMbps\n      networkUpMbps\n      storageReadMBps\n      storageWriteMBps\n    }\n    scheduleClosesAt\n    reliabilityParts {\n      uptime\n      completion\n      consistency\n    }\n  }\n"): (typeof documents)["\n  fragment ListingFields on Listing {\n    id\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    vramGb\n    pricePerHour\n    performanceScore\n    reliabilityScore\n    uptime\n    tier\n    commitmentMonths\n    location {\n      city\n      country\n      region\n    }\n    rank\n    nextMaintenanceAt\n    simulated\n    providerName\n    driverVersion\n    cudaVersion\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    performance {\n      metric\n      measuredTflops\n      datasheetTflops\n      ratio\n      tflopsPerDollar\n    }\n    measured {\n      at\n      networkDownMbps\n      networkUpMbps\n      storageReadMBps\n      storageWriteMBps\n    }\n    scheduleClosesAt\n    reliabilityParts {\n      uptime\n      completion\n      consistency\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Marketplace($filter: MarketplaceFilter, $sort: MarketplaceSort, $first: Int, $after: String) {\n    marketplace(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...ListingFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query Marketplace($filter: MarketplaceFilter, $sort: MarketplaceSort, $first: Int, $after: String) {\n    marketplace(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...ListingFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MarketplaceModels {\n    supportedGpuModels {\n      key\n      name\n      family\n      vramGb\n    }\n  }\n"): (typeof documents)["\n  query MarketplaceModels {\n    supportedGpuModels {\n      key\n      name\n      family\n      vramGb\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StartRental($input: StartRentalInput!) {\n    startRental(input: $input) {\n      rental {\n        id\n        state\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation StartRental($input: StartRentalInput!) {\n    startRental(input: $input) {\n      rental {\n        id\n        state\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n"): (typeof documents)["\n  fragment NotificationFields on Notification {\n    id\n    kind\n    title\n    body\n    params {\n      key\n      value\n    }\n    createdAt\n    readAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n"): (typeof documents)["\n  query Notifications($first: Int!) {\n    notifications(first: $first) {\n      edges {\n        node {\n          ...NotificationFields\n        }\n      }\n      unreadCount\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation MarkNotificationsRead($ids: [ID!]) {\n    markNotificationsRead(ids: $ids) {\n      updated\n      unreadCount\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n"): (typeof documents)["\n  subscription NotificationAdded($afterId: ID) {\n    notificationAdded(afterId: $afterId) {\n      ...NotificationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment GpuModelFields on GpuModel {\n    key\n    family\n    name\n    variant\n    vramGb\n  }\n"): (typeof documents)["\n  fragment GpuModelFields on GpuModel {\n    key\n    family\n    name\n    variant\n    vramGb\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ApplicationFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        ...GpuModelFields\n      }\n      otherModel\n      quantity\n      ramGb\n      uploadGbps\n      downloadGbps\n      availability {\n        kind\n        timeZone\n        windows {\n          day\n          start\n          end\n        }\n      }\n      location {\n        city\n        country\n        region\n      }\n    }\n    upsProtected\n    commitmentMonths\n    maintenanceNotes\n    suggestedTier {\n      tier\n      reasons\n      reasonCodes\n    }\n    tier\n    history {\n      action\n      actor {\n        name\n        isAdmin\n      }\n      message\n      tier\n      at\n      # Admins only (null for the applicant): what a resubmission changed.\n      changes {\n        field\n        before\n        after\n      }\n    }\n    submittedAt\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment ApplicationFields on ProviderApplication {\n    id\n    status\n    fullName\n    email\n    company\n    gpus {\n      model {\n        ...GpuModelFields\n      }\n      otherModel\n      quantity\n      ramGb\n      uploadGbps\n      downloadGbps\n      availability {\n        kind\n        timeZone\n        windows {\n          day\n          start\n          end\n        }\n      }\n      location {\n        city\n        country\n        region\n      }\n    }\n    upsProtected\n    commitmentMonths\n    maintenanceNotes\n    suggestedTier {\n      tier\n      reasons\n      reasonCodes\n    }\n    tier\n    history {\n      action\n      actor {\n        name\n        isAdmin\n      }\n      message\n      tier\n      at\n      # Admins only (null for the applicant): what a resubmission changed.\n      changes {\n        field\n        before\n        after\n      }\n    }\n    submittedAt\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ApplicationPayloadFields on ProviderApplicationPayload {\n    application {\n      ...ApplicationFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n  }\n"): (typeof documents)["\n  fragment ApplicationPayloadFields on ProviderApplicationPayload {\n    application {\n      ...ApplicationFields\n    }\n    userErrors {\n      ...UserErrorFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SupportedGpuModels {\n    supportedGpuModels {\n      ...GpuModelFields\n    }\n  }\n"): (typeof documents)["\n  query SupportedGpuModels {\n    supportedGpuModels {\n      ...GpuModelFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyApplication {\n    myApplication {\n      ...ApplicationFields\n    }\n  }\n"): (typeof documents)["\n  query MyApplication {\n    myApplication {\n      ...ApplicationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SubmitProviderApplication($input: ProviderApplicationInput!) {\n    submitProviderApplication(input: $input) {\n      ...ApplicationPayloadFields\n    }\n  }\n"): (typeof documents)["\n  mutation SubmitProviderApplication($input: ProviderApplicationInput!) {\n    submitProviderApplication(input: $input) {\n      ...ApplicationPayloadFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateProviderApplication($id: ID!, $input: ProviderApplicationInput!, $reply: String) {\n    updateProviderApplication(id: $id, input: $input, reply: $reply) {\n      ...ApplicationPayloadFields\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateProviderApplication($id: ID!, $input: ProviderApplicationInput!, $reply: String) {\n    updateProviderApplication(id: $id, input: $input, reply: $reply) {\n      ...ApplicationPayloadFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderProgress {\n    myProvider {\n      id\n      progress {\n        step\n        reachedAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderProgress {\n    myProvider {\n      id\n      progress {\n        step\n        reachedAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment GpuTelemetryFields on GpuTelemetry {\n    at\n    utilizationPct\n    memoryUsedBytes\n    temperatureC\n    powerDrawW\n    smClockMHz\n    throttleReasons\n    eccCorrected\n    eccUncorrected\n    recentUtilizationPct\n  }\n"): (typeof documents)["\n  fragment GpuTelemetryFields on GpuTelemetry {\n    at\n    utilizationPct\n    memoryUsedBytes\n    temperatureC\n    powerDrawW\n    smClockMHz\n    throttleReasons\n    eccCorrected\n    eccUncorrected\n    recentUtilizationPct\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment MachineFields on Machine {\n    id\n    machineId\n    heartbeatIntervalSeconds\n    hostname\n    status\n    offlineReason\n    statusChangedAt\n    lastHeartbeatAt\n    agentVersion\n    driverVersion\n    cudaVersion\n    simulated\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    diskFreeBytes\n    registeredAt\n    gpus {\n      id\n      uuid\n      index\n      name\n      model {\n        key\n        name\n      }\n      vramBytes\n      pciBusId\n      powerLimitW\n      simulated\n      listing\n      rented\n      telemetry {\n        ...GpuTelemetryFields\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment MachineFields on Machine {\n    id\n    machineId\n    heartbeatIntervalSeconds\n    hostname\n    status\n    offlineReason\n    statusChangedAt\n    lastHeartbeatAt\n    agentVersion\n    driverVersion\n    cudaVersion\n    simulated\n    cpuModel\n    cpuCores\n    ramBytes\n    diskBytes\n    diskFreeBytes\n    registeredAt\n    gpus {\n      id\n      uuid\n      index\n      name\n      model {\n        key\n        name\n      }\n      vramBytes\n      pciBusId\n      powerLimitW\n      simulated\n      listing\n      rented\n      telemetry {\n        ...GpuTelemetryFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderFleet {\n    myProvider {\n      id\n      name\n      tier\n      machines {\n        ...MachineFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderFleet {\n    myProvider {\n      id\n      name\n      tier\n      machines {\n        ...MachineFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription MachineStatusChanged {\n    machineStatusChanged {\n      kind\n      machine {\n        ...MachineFields\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription MachineStatusChanged {\n    machineStatusChanged {\n      kind\n      machine {\n        ...MachineFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PayoutFields on Payout {\n    id\n    periodStart\n    periodEnd\n    amount\n    kind\n    destination\n    state\n    reference\n    signature\n    transactionUrl\n    paidReference\n    failure\n    createdAt\n    paidAt\n    provider {\n      id\n      name\n      applicationId\n    }\n  }\n"): (typeof documents)["\n  fragment PayoutFields on Payout {\n    id\n    periodStart\n    periodEnd\n    amount\n    kind\n    destination\n    state\n    reference\n    signature\n    transactionUrl\n    paidReference\n    failure\n    createdAt\n    paidAt\n    provider {\n      id\n      name\n      applicationId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PayoutMethodFields on PayoutMethod {\n    schedule\n    kind\n    solanaAddress\n    ibanMasked\n    bic\n    accountHolder\n    changedAt\n    holdUntil\n  }\n"): (typeof documents)["\n  fragment PayoutMethodFields on PayoutMethod {\n    schedule\n    kind\n    solanaAddress\n    ibanMasked\n    bic\n    accountHolder\n    changedAt\n    holdUntil\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderPayouts {\n    myProvider {\n      id\n      payoutMethod {\n        ...PayoutMethodFields\n      }\n      nextPayout {\n        periodStart\n        periodEnd\n        dueAt\n        available\n        threshold\n        thresholdMet\n        heldUntil\n      }\n      earnings {\n        availableBalance\n      }\n      payouts(first: 50) {\n        ...PayoutFields\n      }\n      payoutWeeks(weeks: 12) {\n        start\n        paid\n        count\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderPayouts {\n    myProvider {\n      id\n      payoutMethod {\n        ...PayoutMethodFields\n      }\n      nextPayout {\n        periodStart\n        periodEnd\n        dueAt\n        available\n        threshold\n        thresholdMet\n        heldUntil\n      }\n      earnings {\n        availableBalance\n      }\n      payouts(first: 50) {\n        ...PayoutFields\n      }\n      payoutWeeks(weeks: 12) {\n        start\n        paid\n        count\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetPayoutMethod($input: SetPayoutMethodInput!) {\n    setPayoutMethod(input: $input) {\n      method {\n        ...PayoutMethodFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation SetPayoutMethod($input: SetPayoutMethodInput!) {\n    setPayoutMethod(input: $input) {\n      method {\n        ...PayoutMethodFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RequestPayout {\n    requestPayout {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation RequestPayout {\n    requestPayout {\n      payout {\n        ...PayoutFields\n      }\n      userErrors {\n        field\n        message\n        code\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment GpuPriceFields on GpuPrice {\n    modelKey\n    model {\n      key\n      name\n    }\n    pricePerHour\n    updatedAt\n    history {\n      pricePerHour\n      at\n    }\n  }\n"): (typeof documents)["\n  fragment GpuPriceFields on GpuPrice {\n    modelKey\n    model {\n      key\n      name\n    }\n    pricePerHour\n    updatedAt\n    history {\n      pricePerHour\n      at\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ScheduleFields on AvailabilitySchedule {\n    availability {\n      kind\n      timeZone\n      windows {\n        day\n        start\n        end\n      }\n    }\n    openNow\n    nextChangeAt\n    updatedAt\n  }\n"): (typeof documents)["\n  fragment ScheduleFields on AvailabilitySchedule {\n    availability {\n      kind\n      timeZone\n      windows {\n        day\n        start\n        end\n      }\n    }\n    openNow\n    nextChangeAt\n    updatedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment MaintenanceWindowFields on MaintenanceWindow {\n    id\n    machineId\n    startsAt\n    endsAt\n    note\n  }\n"): (typeof documents)["\n  fragment MaintenanceWindowFields on MaintenanceWindow {\n    id\n    machineId\n    startsAt\n    endsAt\n    note\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderPricing {\n    myProvider {\n      id\n      machines {\n        id\n        hostname\n        gpus {\n          id\n          model {\n            key\n            name\n          }\n        }\n      }\n      prices {\n        ...GpuPriceFields\n      }\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderPricing {\n    myProvider {\n      id\n      machines {\n        id\n        hostname\n        gpus {\n          id\n          model {\n            key\n            name\n          }\n        }\n      }\n      prices {\n        ...GpuPriceFields\n      }\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment MarketRegionFields on MarketRegion {\n    level\n    city\n    country\n    continent\n  }\n"): (typeof documents)["\n  fragment MarketRegionFields on MarketRegion {\n    level\n    city\n    country\n    continent\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PriceOutcomeFields on PriceOutcome {\n    pricePerHour\n    utilization\n    monthlyEarnings\n  }\n"): (typeof documents)["\n  fragment PriceOutcomeFields on PriceOutcome {\n    pricePerHour\n    utilization\n    monthlyEarnings\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PricingRecommendation($model: String!, $region: String) {\n    pricingRecommendation(model: $model, region: $region) {\n      modelKey\n      region {\n        ...MarketRegionFields\n      }\n      ownsModel\n      basis\n      market {\n        region {\n          ...MarketRegionFields\n        }\n        p10\n        p50\n        p90\n        gpuCount\n        providerCount\n      }\n      minPricePerHour\n      maxPricePerHour\n      recommended {\n        ...PriceOutcomeFields\n      }\n      current {\n        ...PriceOutcomeFields\n      }\n      curve {\n        ...PriceOutcomeFields\n      }\n      platformFeeBps\n      hoursPerMonth\n      reasons {\n        code\n        region {\n          ...MarketRegionFields\n        }\n        gpuCount\n        providerCount\n        utilization\n        gpuHours\n        weeks\n        percent\n        modelCount\n        pricePerHour\n        limitPerHour\n      }\n    }\n  }\n"): (typeof documents)["\n  query PricingRecommendation($model: String!, $region: String) {\n    pricingRecommendation(model: $model, region: $region) {\n      modelKey\n      region {\n        ...MarketRegionFields\n      }\n      ownsModel\n      basis\n      market {\n        region {\n          ...MarketRegionFields\n        }\n        p10\n        p50\n        p90\n        gpuCount\n        providerCount\n      }\n      minPricePerHour\n      maxPricePerHour\n      recommended {\n        ...PriceOutcomeFields\n      }\n      current {\n        ...PriceOutcomeFields\n      }\n      curve {\n        ...PriceOutcomeFields\n      }\n      platformFeeBps\n      hoursPerMonth\n      reasons {\n        code\n        region {\n          ...MarketRegionFields\n        }\n        gpuCount\n        providerCount\n        utilization\n        gpuHours\n        weeks\n        percent\n        modelCount\n        pricePerHour\n        limitPerHour\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetGpuPrice($input: SetGpuPriceInput!) {\n    setGpuPrice(input: $input) {\n      price {\n        ...GpuPriceFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation SetGpuPrice($input: SetGpuPriceInput!) {\n    setGpuPrice(input: $input) {\n      price {\n        ...GpuPriceFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetAvailabilitySchedule($input: SetAvailabilityScheduleInput!) {\n    setAvailabilitySchedule(input: $input) {\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation SetAvailabilitySchedule($input: SetAvailabilityScheduleInput!) {\n    setAvailabilitySchedule(input: $input) {\n      schedule {\n        ...ScheduleFields\n      }\n      maintenance {\n        ...MaintenanceWindowFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AgentTokenFields on AgentToken {\n    id\n    name\n    prefix\n    createdAt\n    lastUsedAt\n    revokedAt\n    machineCount\n  }\n"): (typeof documents)["\n  fragment AgentTokenFields on AgentToken {\n    id\n    name\n    prefix\n    createdAt\n    lastUsedAt\n    revokedAt\n    machineCount\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyProviderTokens {\n    myProvider {\n      id\n      tier\n      name\n      agentTokens {\n        ...AgentTokenFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query MyProviderTokens {\n    myProvider {\n      id\n      tier\n      name\n      agentTokens {\n        ...AgentTokenFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateAgentToken($name: String!) {\n    createAgentToken(name: $name) {\n      token\n      installCommand\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation CreateAgentToken($name: String!) {\n    createAgentToken(name: $name) {\n      token\n      installCommand\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RevokeAgentToken($id: ID!) {\n    revokeAgentToken(id: $id) {\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation RevokeAgentToken($id: ID!) {\n    revokeAgentToken(id: $id) {\n      agentToken {\n        ...AgentTokenFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ProviderRentalFields on ProviderRental {\n    id\n    state\n    cause\n    machineId\n    hostname\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    gpuUuids\n    gpuIndexes\n    pricePerHour\n    earned\n    image\n    createdAt\n    startedAt\n    endedAt\n  }\n"): (typeof documents)["\n  fragment ProviderRentalFields on ProviderRental {\n    id\n    state\n    cause\n    machineId\n    hostname\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    gpuUuids\n    gpuIndexes\n    pricePerHour\n    earned\n    image\n    createdAt\n    startedAt\n    endedAt\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderRentals {\n    myProvider {\n      id\n      rentals {\n        ...ProviderRentalFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderRentals {\n    myProvider {\n      id\n      rentals {\n        ...ProviderRentalFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ProviderRentalUpdated {\n    providerRentalUpdated {\n      ...ProviderRentalFields\n    }\n  }\n"): (typeof documents)["\n  subscription ProviderRentalUpdated {\n    providerRentalUpdated {\n      ...ProviderRentalFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ReliabilityComponentsFields on ReliabilityComponents {\n    uptime\n    completion\n    consistency\n  }\n"): (typeof documents)["\n  fragment ReliabilityComponentsFields on ReliabilityComponents {\n    uptime\n    completion\n    consistency\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ReliabilityFields on Reliability {\n    scored\n    score\n    components {\n      ...ReliabilityComponentsFields\n    }\n    halfLifeDays\n    windowDays\n    floor\n    belowFloor\n    trend {\n      day\n      score\n    }\n    events {\n      kind\n      machineId\n      hostname\n      at\n      endedAt\n      magnitude\n      cost\n      detail\n    }\n    projection {\n      day\n      score\n    }\n    advice\n    machines {\n      machineId\n      hostname\n      scored\n      score\n      components {\n        ...ReliabilityComponentsFields\n      }\n      belowFloor\n    }\n    asOf\n  }\n"): (typeof documents)["\n  fragment ReliabilityFields on Reliability {\n    scored\n    score\n    components {\n      ...ReliabilityComponentsFields\n    }\n    halfLifeDays\n    windowDays\n    floor\n    belowFloor\n    trend {\n      day\n      score\n    }\n    events {\n      kind\n      machineId\n      hostname\n      at\n      endedAt\n      magnitude\n      cost\n      detail\n    }\n    projection {\n      day\n      score\n    }\n    advice\n    machines {\n      machineId\n      hostname\n      scored\n      score\n      components {\n        ...ReliabilityComponentsFields\n      }\n      belowFloor\n    }\n    asOf\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProviderReliability {\n    myProvider {\n      id\n      reliability {\n        ...ReliabilityFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProviderReliability {\n    myProvider {\n      id\n      reliability {\n        ...ReliabilityFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ReliabilityUpdated {\n    reliabilityUpdated {\n      ...ReliabilityFields\n    }\n  }\n"): (typeof documents)["\n  subscription ReliabilityUpdated {\n    reliabilityUpdated {\n      ...ReliabilityFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment RentalFields on Rental {\n    id\n    state\n    cause\n    message\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    pricePerHour\n    image\n    command\n    envNames\n    location {\n      city\n      country\n      region\n    }\n    tier\n    createdAt\n    startedAt\n    endedAt\n    endsBy\n    exitCode\n    end\n    billedSeconds\n    billedUntil\n    charged\n    refunded\n  }\n"): (typeof documents)["\n  fragment RentalFields on Rental {\n    id\n    state\n    cause\n    message\n    modelKey\n    model {\n      key\n      name\n    }\n    gpuCount\n    pricePerHour\n    image\n    command\n    envNames\n    location {\n      city\n      country\n      region\n    }\n    tier\n    createdAt\n    startedAt\n    endedAt\n    endsBy\n    exitCode\n    end\n    billedSeconds\n    billedUntil\n    charged\n    refunded\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query MyRentals($first: Int, $after: String) {\n    myRentals(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...RentalFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query MyRentals($first: Int, $after: String) {\n    myRentals(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          ...RentalFields\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Rental($id: ID!) {\n    rental(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n"): (typeof documents)["\n  query Rental($id: ID!) {\n    rental(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RentalsUpdated {\n    rentalUpdated {\n      ...RentalFields\n    }\n  }\n"): (typeof documents)["\n  subscription RentalsUpdated {\n    rentalUpdated {\n      ...RentalFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RentalUpdated($id: ID!) {\n    rentalUpdated(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n"): (typeof documents)["\n  subscription RentalUpdated($id: ID!) {\n    rentalUpdated(id: $id) {\n      ...RentalFields\n      logTail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StopRental($id: ID!) {\n    stopRental(id: $id) {\n      rental {\n        ...RentalFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation StopRental($id: ID!) {\n    stopRental(id: $id) {\n      rental {\n        ...RentalFields\n      }\n      userErrors {\n        ...UserErrorFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RentalsMonthTotal {\n    myRentalsMonthTotal {\n      monthStart\n      charged\n    }\n  }\n"): (typeof documents)["\n  query RentalsMonthTotal {\n    myRentalsMonthTotal {\n      monthStart\n      charged\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Statement($first: Int, $after: String) {\n    myStatement(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          postedAt\n          kind\n          reference\n          rentalId\n          amount\n          balance\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      balance\n    }\n  }\n"): (typeof documents)["\n  query Statement($first: Int, $after: String) {\n    myStatement(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          postedAt\n          kind\n          reference\n          rentalId\n          amount\n          balance\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      balance\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StatementCsv {\n    myStatementCsv\n  }\n"): (typeof documents)["\n  query StatementCsv {\n    myStatementCsv\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;