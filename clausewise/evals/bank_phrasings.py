"""How a lawyer asks about each CUAD category: the question bank's wordings.

Each of CUAD's 41 categories is asked as a plain yes/no question, three ways, worded so that "yes"
means the contract has the provision as CUAD's annotators marked it (a non-compete question is
answered "yes" by a contract with a non-compete). The categories that have a value (a law, a
date, a duration, the parties) are also asked for that value, three ways.

These are test data, written apart from the product: the product's question matcher reads the
provision list (``clausewise/core/suites/cuad.yaml``), never these wordings, so a figure measured
with them says how the matcher does on wordings it was not written from. Held-out banks use
other wordings again.
"""

from __future__ import annotations

#: Category -> three yes/no wordings; "yes" = the provision is present.
YES_NO: dict[str, tuple[str, str, str]] = {
    "Document Name": (
        "Does the document give the agreement a title?",
        "Is the agreement's name stated in it?",
        "Does the contract have a title?",
    ),
    "Parties": (
        "Does the agreement identify the parties to it?",
        "Are the contracting parties named in the agreement?",
        "Does the contract say who the parties are?",
    ),
    "Agreement Date": (
        "Is the agreement dated?",
        "Does the contract state the date it was made?",
        "Does the agreement say when it was signed or entered into?",
    ),
    "Effective Date": (
        "Does the agreement state when it becomes effective?",
        "Is there an effective date?",
        "Does the contract say from when it takes effect?",
    ),
    "Expiration Date": (
        "Does the agreement state when its initial term ends?",
        "Does the contract have a fixed expiry?",
        "Is the length of the initial term specified?",
    ),
    "Renewal Term": (
        "Does the agreement renew automatically?",
        "Is there a renewal term after the initial term?",
        "Will the contract extend itself for further periods unless someone acts?",
    ),
    "Notice Period to Terminate Renewal": (
        "Must a party give notice by a deadline to stop the agreement from renewing?",
        "Is there a notice period for non-renewal?",
        "Does the contract require advance notice to prevent automatic renewal?",
    ),
    "Governing Law": (
        "Does the agreement say which law governs it?",
        "Is there a governing law clause?",
        "Does the contract choose the law that applies to it?",
    ),
    "Most Favored Nation": (
        "Is there a most-favoured-nation clause?",
        "Is a party entitled to terms at least as good as those offered to other customers?",
        "Does the agreement guarantee a party the best price or terms given to any third party?",
    ),
    "Non-Compete": (
        "Does the agreement restrict a party from competing with the other party?",
        "Is there a non-compete?",
        "Is either party barred from operating a competing business?",
    ),
    "Exclusivity": (
        "Is there an exclusivity obligation?",
        "Does a party have to deal exclusively with the other?",
        "Is any party prohibited from buying from or selling to others?",
    ),
    "No-Solicit of Customers": (
        "Is a party prohibited from soliciting the other party's customers?",
        "Is there a customer non-solicitation clause?",
        "Does the agreement stop a party from taking the other's clients?",
    ),
    "Competitive Restriction Exception": (
        "Are there exceptions to the non-compete or exclusivity restrictions?",
        "Does the agreement carve anything out of its restrictive covenants?",
        "Are any activities excepted from the exclusivity or non-compete obligations?",
    ),
    "No-Solicit of Employees": (
        "Is there a no-hire or employee non-solicitation clause?",
        "Is a party barred from hiring the other party's staff?",
        "Does the agreement restrict soliciting the other side's employees?",
    ),
    "Non-Disparagement": (
        "Is there a non-disparagement clause?",
        "Must the parties refrain from disparaging each other?",
        "Does the agreement prohibit negative statements about the other party?",
    ),
    "Termination for Convenience": (
        "Can a party terminate the agreement for convenience?",
        "May a party end the contract without cause?",
        "Is there a right to terminate at will on notice?",
    ),
    "Rofr/Rofo/Rofn": (
        "Does a party have a right of first refusal?",
        "Is there a right of first offer or first negotiation?",
        "Must a party offer the other the first opportunity before dealing with third parties?",
    ),
    "Change of Control": (
        "Does a change of control of a party have consequences under the agreement?",
        "Is there a change-of-control clause?",
        "Can the agreement be terminated, or consent be needed, if a party is acquired?",
    ),
    "Anti-Assignment": (
        "Is assignment of the agreement restricted?",
        "Does a party need consent to assign the contract?",
        "Are there limits on transferring the agreement to someone else?",
    ),
    "Revenue/Profit Sharing": (
        "Does a party have to share revenue or profits with the other?",
        "Are royalties or a revenue share payable?",
        "Is there a profit-sharing arrangement?",
    ),
    "Price Restrictions": (
        "Are there restrictions on changing prices?",
        "Is a party limited in how it may raise or lower prices?",
        "Does the agreement cap or fix price increases?",
    ),
    "Minimum Commitment": (
        "Is there a minimum purchase commitment?",
        "Must a party buy or pay a minimum amount?",
        "Does the agreement set minimum order quantities or volumes?",
    ),
    "Volume Restriction": (
        "Are there volume or usage limits?",
        "Does exceeding a usage threshold trigger fees or require consent?",
        "Is the amount a party may use or order capped?",
    ),
    "IP Ownership Assignment": (
        "Does intellectual property created under the agreement belong to the other party?",
        "Is there an assignment of IP ownership?",
        "Must a party transfer ownership of work product or inventions to the other?",
    ),
    "Joint IP Ownership": (
        "Is any intellectual property jointly owned?",
        "Do the parties co-own any IP?",
        "Does the agreement provide for joint ownership of inventions or work?",
    ),
    "License Grant": (
        "Does the agreement grant a license?",
        "Does one party license rights to the other?",
        "Is there a license grant?",
    ),
    "Non-Transferable License": (
        "Is the license non-transferable?",
        "Are there restrictions on transferring or sublicensing the licence?",
        "Is the licensee barred from assigning its license?",
    ),
    "Affiliate License-Licensor": (
        "Does the license cover rights held by the licensor's affiliates?",
        "Are affiliates of the licensor included in the license grant?",
        "Does the licence include IP owned by the licensor's affiliates?",
    ),
    "Affiliate License-Licensee": (
        "Can the licensee's affiliates use the license?",
        "Does the license extend to the licensee's affiliates?",
        "Are the licensee's subsidiaries licensed too?",
    ),
    "Unlimited/All-You-Can-Eat-License": (
        "Is there an unlimited-use or enterprise-wide license?",
        "Does the licensee get unlimited usage rights?",
        "Is the license all-you-can-eat?",
    ),
    "Irrevocable or Perpetual License": (
        "Is any license perpetual or irrevocable?",
        "Does the licence last forever?",
        "Is the license granted irrevocably?",
    ),
    "Source Code Escrow": (
        "Is there a source code escrow?",
        "Must source code be deposited with an escrow agent?",
        "Will the customer get the source code if the vendor goes bankrupt?",
    ),
    "Post-Termination Services": (
        "Are there obligations after termination, such as transition services?",
        "Must a party provide services or support after the agreement ends?",
        "Does the agreement provide for a wind-down period after termination?",
    ),
    "Audit Rights": (
        "Does a party have audit rights?",
        "Can a party inspect the other's books and records?",
        "Is there a right to audit?",
    ),
    "Uncapped Liability": (
        "Is any liability uncapped?",
        "Are some claims excluded from the limitation of liability?",
        "Is there unlimited liability for anything, such as a breach of confidentiality?",
    ),
    "Cap on Liability": (
        "Is liability capped?",
        "Is there a limitation of liability?",
        "Does the agreement limit the damages a party can recover?",
    ),
    "Liquidated Damages": (
        "Is there a liquidated damages clause?",
        "Does the agreement fix a sum payable on breach or termination?",
        "Are there termination fees or liquidated damages?",
    ),
    "Warranty Duration": (
        "Is there a warranty period?",
        "Does the agreement state how long a warranty lasts?",
        "Is the product or service warranted for a set time?",
    ),
    "Insurance": (
        "Must a party maintain insurance?",
        "Is there an insurance requirement?",
        "Does the agreement require liability insurance coverage?",
    ),
    "Covenant Not to Sue": (
        "Is a party prohibited from challenging the other's intellectual property?",
        "Is there a covenant not to sue?",
        "Does a party agree not to contest the validity of the other's IP?",
    ),
    "Third Party Beneficiary": (
        "Does the agreement give rights to third-party beneficiaries?",
        "Can someone who is not a party enforce the agreement?",
        "Is there a third-party beneficiary clause?",
    ),
}

#: Category with a value -> (how the gold answer is read, three value wordings).
#: Readings: "law", "date", "duration", "date-or-duration", "parties", "name".
VALUES: dict[str, tuple[str, tuple[str, str, str]]] = {
    "Governing Law": (
        "law",
        (
            "Which law governs the agreement?",
            "What is the governing law?",
            "Under which state's or country's law is this contract construed?",
        ),
    ),
    "Expiration Date": (
        "date-or-duration",
        (
            "When does the agreement expire?",
            "When does the initial term end?",
            "How long is the initial term of the agreement?",
        ),
    ),
    "Renewal Term": (
        "duration",
        (
            "What is the renewal term?",
            "For how long does the agreement renew?",
            "How long is each renewal period?",
        ),
    ),
    "Notice Period to Terminate Renewal": (
        "duration",
        (
            "How much notice is needed to stop the agreement from renewing?",
            "What is the notice period for non-renewal?",
            "How far in advance must a party give notice to prevent renewal?",
        ),
    ),
    "Effective Date": (
        "date",
        (
            "What is the effective date of the agreement?",
            "When does the agreement take effect?",
            "From what date is the contract effective?",
        ),
    ),
    "Agreement Date": (
        "date",
        (
            "What date is the agreement dated?",
            "When was the agreement entered into?",
            "What is the date of the agreement?",
        ),
    ),
    "Parties": (
        "parties",
        (
            "Who are the parties to the agreement?",
            "Which companies signed this contract?",
            "Who are the contracting parties?",
        ),
    ),
    "Warranty Duration": (
        "duration",
        (
            "How long does the warranty last?",
            "What is the warranty period?",
            "For how long is the product warranted?",
        ),
    ),
}

#: Category with a value -> (how the gold value is read, three wordings asking whether the contract
#: has the provision and, in the same question, its value). "Yes" with the value is right when the
#: contract has it; "no" (and no value) when it does not.
BOTH: dict[str, tuple[str, tuple[str, str, str]]] = {
    "Renewal Term": (
        "duration",
        (
            "Does the agreement renew automatically, and for how long?",
            "Is there an automatic renewal? If so, how long is each renewal term?",
            "Will the contract roll over at the end of its term, and for what period?",
        ),
    ),
    "Notice Period to Terminate Renewal": (
        "duration",
        (
            "Must notice be given to stop the agreement from renewing, and how much?",
            "Is there a non-renewal notice period, and how long is it?",
            "Do we have to tell them in advance if we don't want to renew, and how far ahead?",
        ),
    ),
    "Warranty Duration": (
        "duration",
        (
            "Is there a warranty period, and how long is it?",
            "Does the agreement warrant the product for a set time, and for how long?",
            "Is the work guaranteed for some period, and what period?",
        ),
    ),
    "Governing Law": (
        "law",
        (
            "Does the agreement choose a governing law, and which one?",
            "Is there a choice-of-law clause? Which law does it pick?",
            "Does the contract say what law applies to it, and what law is that?",
        ),
    ),
    "Expiration Date": (
        "date-or-duration",
        (
            "Does the agreement have a fixed initial term, and when does it end?",
            "Is there an expiry date, and what is it?",
            "Does the contract run for a set period, and how long is it?",
        ),
    ),
}
