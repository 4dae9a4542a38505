var K=globalThis,J=K.ShadowRoot&&(K.ShadyCSS===void 0||K.ShadyCSS.nativeShadow)&&"adoptedStyleSheets"in Document.prototype&&"replace"in CSSStyleSheet.prototype,ft=Symbol(),Ot=new WeakMap,j=class{constructor(t,e,i){if(this._$cssResult$=!0,i!==ft)throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.");this.cssText=t,this.t=e}get styleSheet(){let t=this.o,e=this.t;if(J&&t===void 0){let i=e!==void 0&&e.length===1;i&&(t=Ot.get(e)),t===void 0&&((this.o=t=new CSSStyleSheet).replaceSync(this.cssText),i&&Ot.set(e,t))}return t}toString(){return this.cssText}},F=r=>new j(typeof r=="string"?r:r+"",void 0,ft),y=(r,...t)=>{let e=r.length===1?r[0]:t.reduce((i,s,n)=>i+(o=>{if(o._$cssResult$===!0)return o.cssText;if(typeof o=="number")return o;throw Error("Value passed to 'css' function must be a 'css' function result: "+o+". Use 'unsafeCSS' to pass non-literal values, but take care to ensure page security.")})(s)+r[n+1],r[0]);return new j(e,r,ft)},Rt=(r,t)=>{if(J)r.adoptedStyleSheets=t.map(e=>e instanceof CSSStyleSheet?e:e.styleSheet);else for(let e of t){let i=document.createElement("style"),s=K.litNonce;s!==void 0&&i.setAttribute("nonce",s),i.textContent=e.cssText,r.appendChild(i)}},mt=J?r=>r:r=>r instanceof CSSStyleSheet?(t=>{let e="";for(let i of t.cssRules)e+=i.cssText;return F(e)})(r):r;var{is:De,defineProperty:He,getOwnPropertyDescriptor:Ie,getOwnPropertyNames:Le,getOwnPropertySymbols:Me,getPrototypeOf:je}=Object,G=globalThis,Nt=G.trustedTypes,Be=Nt?Nt.emptyScript:"",qe=G.reactiveElementPolyfillSupport,B=(r,t)=>r,gt={toAttribute(r,t){switch(t){case Boolean:r=r?Be:null;break;case Object:case Array:r=r==null?r:JSON.stringify(r)}return r},fromAttribute(r,t){let e=r;switch(t){case Boolean:e=r!==null;break;case Number:e=r===null?null:Number(r);break;case Object:case Array:try{e=JSON.parse(r)}catch{e=null}}return e}},Ut=(r,t)=>!De(r,t),Pt={attribute:!0,type:String,converter:gt,reflect:!1,useDefault:!1,hasChanged:Ut};Symbol.metadata??=Symbol("metadata"),G.litPropertyMetadata??=new WeakMap;var x=class extends HTMLElement{static addInitializer(t){this._$Ei(),(this.l??=[]).push(t)}static get observedAttributes(){return this.finalize(),this._$Eh&&[...this._$Eh.keys()]}static createProperty(t,e=Pt){if(e.state&&(e.attribute=!1),this._$Ei(),this.prototype.hasOwnProperty(t)&&((e=Object.create(e)).wrapped=!0),this.elementProperties.set(t,e),!e.noAccessor){let i=Symbol(),s=this.getPropertyDescriptor(t,i,e);s!==void 0&&He(this.prototype,t,s)}}static getPropertyDescriptor(t,e,i){let{get:s,set:n}=Ie(this.prototype,t)??{get(){return this[e]},set(o){this[e]=o}};return{get:s,set(o){let c=s?.call(this);n?.call(this,o),this.requestUpdate(t,c,i)},configurable:!0,enumerable:!0}}static getPropertyOptions(t){return this.elementProperties.get(t)??Pt}static _$Ei(){if(this.hasOwnProperty(B("elementProperties")))return;let t=je(this);t.finalize(),t.l!==void 0&&(this.l=[...t.l]),this.elementProperties=new Map(t.elementProperties)}static finalize(){if(this.hasOwnProperty(B("finalized")))return;if(this.finalized=!0,this._$Ei(),this.hasOwnProperty(B("properties"))){let e=this.properties,i=[...Le(e),...Me(e)];for(let s of i)this.createProperty(s,e[s])}let t=this[Symbol.metadata];if(t!==null){let e=litPropertyMetadata.get(t);if(e!==void 0)for(let[i,s]of e)this.elementProperties.set(i,s)}this._$Eh=new Map;for(let[e,i]of this.elementProperties){let s=this._$Eu(e,i);s!==void 0&&this._$Eh.set(s,e)}this.elementStyles=this.finalizeStyles(this.styles)}static finalizeStyles(t){let e=[];if(Array.isArray(t)){let i=new Set(t.flat(1/0).reverse());for(let s of i)e.unshift(mt(s))}else t!==void 0&&e.push(mt(t));return e}static _$Eu(t,e){let i=e.attribute;return i===!1?void 0:typeof i=="string"?i:typeof t=="string"?t.toLowerCase():void 0}constructor(){super(),this._$Ep=void 0,this.isUpdatePending=!1,this.hasUpdated=!1,this._$Em=null,this._$Ev()}_$Ev(){this._$ES=new Promise(t=>this.enableUpdating=t),this._$AL=new Map,this._$E_(),this.requestUpdate(),this.constructor.l?.forEach(t=>t(this))}addController(t){(this._$EO??=new Set).add(t),this.renderRoot!==void 0&&this.isConnected&&t.hostConnected?.()}removeController(t){this._$EO?.delete(t)}_$E_(){let t=new Map,e=this.constructor.elementProperties;for(let i of e.keys())this.hasOwnProperty(i)&&(t.set(i,this[i]),delete this[i]);t.size>0&&(this._$Ep=t)}createRenderRoot(){let t=this.shadowRoot??this.attachShadow(this.constructor.shadowRootOptions);return Rt(t,this.constructor.elementStyles),t}connectedCallback(){this.renderRoot??=this.createRenderRoot(),this.enableUpdating(!0),this._$EO?.forEach(t=>t.hostConnected?.())}enableUpdating(t){}disconnectedCallback(){this._$EO?.forEach(t=>t.hostDisconnected?.())}attributeChangedCallback(t,e,i){this._$AK(t,i)}_$ET(t,e){let i=this.constructor.elementProperties.get(t),s=this.constructor._$Eu(t,i);if(s!==void 0&&i.reflect===!0){let n=(i.converter?.toAttribute!==void 0?i.converter:gt).toAttribute(e,i.type);this._$Em=t,n==null?this.removeAttribute(s):this.setAttribute(s,n),this._$Em=null}}_$AK(t,e){let i=this.constructor,s=i._$Eh.get(t);if(s!==void 0&&this._$Em!==s){let n=i.getPropertyOptions(s),o=typeof n.converter=="function"?{fromAttribute:n.converter}:n.converter?.fromAttribute!==void 0?n.converter:gt;this._$Em=s;let c=o.fromAttribute(e,n.type);this[s]=c??this._$Ej?.get(s)??c,this._$Em=null}}requestUpdate(t,e,i,s=!1,n){if(t!==void 0){let o=this.constructor;if(s===!1&&(n=this[t]),i??=o.getPropertyOptions(t),!((i.hasChanged??Ut)(n,e)||i.useDefault&&i.reflect&&n===this._$Ej?.get(t)&&!this.hasAttribute(o._$Eu(t,i))))return;this.C(t,e,i)}this.isUpdatePending===!1&&(this._$ES=this._$EP())}C(t,e,{useDefault:i,reflect:s,wrapped:n},o){i&&!(this._$Ej??=new Map).has(t)&&(this._$Ej.set(t,o??e??this[t]),n!==!0||o!==void 0)||(this._$AL.has(t)||(this.hasUpdated||i||(e=void 0),this._$AL.set(t,e)),s===!0&&this._$Em!==t&&(this._$Eq??=new Set).add(t))}async _$EP(){this.isUpdatePending=!0;try{await this._$ES}catch(e){Promise.reject(e)}let t=this.scheduleUpdate();return t!=null&&await t,!this.isUpdatePending}scheduleUpdate(){return this.performUpdate()}performUpdate(){if(!this.isUpdatePending)return;if(!this.hasUpdated){if(this.renderRoot??=this.createRenderRoot(),this._$Ep){for(let[s,n]of this._$Ep)this[s]=n;this._$Ep=void 0}let i=this.constructor.elementProperties;if(i.size>0)for(let[s,n]of i){let{wrapped:o}=n,c=this[s];o!==!0||this._$AL.has(s)||c===void 0||this.C(s,void 0,n,c)}}let t=!1,e=this._$AL;try{t=this.shouldUpdate(e),t?(this.willUpdate(e),this._$EO?.forEach(i=>i.hostUpdate?.()),this.update(e)):this._$EM()}catch(i){throw t=!1,this._$EM(),i}t&&this._$AE(e)}willUpdate(t){}_$AE(t){this._$EO?.forEach(e=>e.hostUpdated?.()),this.hasUpdated||(this.hasUpdated=!0,this.firstUpdated(t)),this.updated(t)}_$EM(){this._$AL=new Map,this.isUpdatePending=!1}get updateComplete(){return this.getUpdateComplete()}getUpdateComplete(){return this._$ES}shouldUpdate(t){return!0}update(t){this._$Eq&&=this._$Eq.forEach(e=>this._$ET(e,this[e])),this._$EM()}updated(t){}firstUpdated(t){}};x.elementStyles=[],x.shadowRootOptions={mode:"open"},x[B("elementProperties")]=new Map,x[B("finalized")]=new Map,qe?.({ReactiveElement:x}),(G.reactiveElementVersions??=[]).push("2.1.2");var yt=globalThis,Dt=r=>r,Q=yt.trustedTypes,Ht=Q?Q.createPolicy("lit-html",{createHTML:r=>r}):void 0,wt="$lit$",S=`lit$${Math.random().toFixed(9).slice(2)}$`,bt="?"+S,Ye=`<${bt}>`,N=document,Y=()=>N.createComment(""),z=r=>r===null||typeof r!="object"&&typeof r!="function",_t=Array.isArray,qt=r=>_t(r)||typeof r?.[Symbol.iterator]=="function",$t=`[ 	
\f\r]`,q=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,It=/-->/g,Lt=/>/g,O=RegExp(`>|${$t}(?:([^\\s"'>=/]+)(${$t}*=${$t}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),Mt=/'/g,jt=/"/g,Yt=/^(?:script|style|textarea|title)$/i,vt=r=>(t,...e)=>({_$litType$:r,strings:t,values:e}),d=vt(1),Hr=vt(2),Ir=vt(3),A=Symbol.for("lit-noChange"),g=Symbol.for("lit-nothing"),Bt=new WeakMap,R=N.createTreeWalker(N,129);function zt(r,t){if(!_t(r)||!r.hasOwnProperty("raw"))throw Error("invalid template strings array");return Ht!==void 0?Ht.createHTML(t):t}var Wt=(r,t)=>{let e=r.length-1,i=[],s,n=t===2?"<svg>":t===3?"<math>":"",o=q;for(let c=0;c<e;c++){let a=r[c],p,u,h=-1,m=0;for(;m<a.length&&(o.lastIndex=m,u=o.exec(a),u!==null);)m=o.lastIndex,o===q?u[1]==="!--"?o=It:u[1]!==void 0?o=Lt:u[2]!==void 0?(Yt.test(u[2])&&(s=RegExp("</"+u[2],"g")),o=O):u[3]!==void 0&&(o=O):o===O?u[0]===">"?(o=s??q,h=-1):u[1]===void 0?h=-2:(h=o.lastIndex-u[2].length,p=u[1],o=u[3]===void 0?O:u[3]==='"'?jt:Mt):o===jt||o===Mt?o=O:o===It||o===Lt?o=q:(o=O,s=void 0);let f=o===O&&r[c+1].startsWith("/>")?" ":"";n+=o===q?a+Ye:h>=0?(i.push(p),a.slice(0,h)+wt+a.slice(h)+S+f):a+S+(h===-2?c:f)}return[zt(r,n+(r[e]||"<?>")+(t===2?"</svg>":t===3?"</math>":"")),i]},W=class r{constructor({strings:t,_$litType$:e},i){let s;this.parts=[];let n=0,o=0,c=t.length-1,a=this.parts,[p,u]=Wt(t,e);if(this.el=r.createElement(p,i),R.currentNode=this.el.content,e===2||e===3){let h=this.el.content.firstChild;h.replaceWith(...h.childNodes)}for(;(s=R.nextNode())!==null&&a.length<c;){if(s.nodeType===1){if(s.hasAttributes())for(let h of s.getAttributeNames())if(h.endsWith(wt)){let m=u[o++],f=s.getAttribute(h).split(S),$=/([.?@])?(.*)/.exec(m);a.push({type:1,index:n,name:$[2],strings:f,ctor:$[1]==="."?X:$[1]==="?"?tt:$[1]==="@"?et:U}),s.removeAttribute(h)}else h.startsWith(S)&&(a.push({type:6,index:n}),s.removeAttribute(h));if(Yt.test(s.tagName)){let h=s.textContent.split(S),m=h.length-1;if(m>0){s.textContent=Q?Q.emptyScript:"";for(let f=0;f<m;f++)s.append(h[f],Y()),R.nextNode(),a.push({type:2,index:++n});s.append(h[m],Y())}}}else if(s.nodeType===8)if(s.data===bt)a.push({type:2,index:n});else{let h=-1;for(;(h=s.data.indexOf(S,h+1))!==-1;)a.push({type:7,index:n}),h+=S.length-1}n++}}static createElement(t,e){let i=N.createElement("template");return i.innerHTML=t,i}};function P(r,t,e=r,i){if(t===A)return t;let s=i!==void 0?e._$Co?.[i]:e._$Cl,n=z(t)?void 0:t._$litDirective$;return s?.constructor!==n&&(s?._$AO?.(!1),n===void 0?s=void 0:(s=new n(r),s._$AT(r,e,i)),i!==void 0?(e._$Co??=[])[i]=s:e._$Cl=s),s!==void 0&&(t=P(r,s._$AS(r,t.values),s,i)),t}var Z=class{constructor(t,e){this._$AV=[],this._$AN=void 0,this._$AD=t,this._$AM=e}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(t){let{el:{content:e},parts:i}=this._$AD,s=(t?.creationScope??N).importNode(e,!0);R.currentNode=s;let n=R.nextNode(),o=0,c=0,a=i[0];for(;a!==void 0;){if(o===a.index){let p;a.type===2?p=new D(n,n.nextSibling,this,t):a.type===1?p=new a.ctor(n,a.name,a.strings,this,t):a.type===6&&(p=new rt(n,this,t)),this._$AV.push(p),a=i[++c]}o!==a?.index&&(n=R.nextNode(),o++)}return R.currentNode=N,s}p(t){let e=0;for(let i of this._$AV)i!==void 0&&(i.strings!==void 0?(i._$AI(t,i,e),e+=i.strings.length-2):i._$AI(t[e])),e++}},D=class r{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(t,e,i,s){this.type=2,this._$AH=g,this._$AN=void 0,this._$AA=t,this._$AB=e,this._$AM=i,this.options=s,this._$Cv=s?.isConnected??!0}get parentNode(){let t=this._$AA.parentNode,e=this._$AM;return e!==void 0&&t?.nodeType===11&&(t=e.parentNode),t}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(t,e=this){t=P(this,t,e),z(t)?t===g||t==null||t===""?(this._$AH!==g&&this._$AR(),this._$AH=g):t!==this._$AH&&t!==A&&this._(t):t._$litType$!==void 0?this.$(t):t.nodeType!==void 0?this.T(t):qt(t)?this.k(t):this._(t)}O(t){return this._$AA.parentNode.insertBefore(t,this._$AB)}T(t){this._$AH!==t&&(this._$AR(),this._$AH=this.O(t))}_(t){this._$AH!==g&&z(this._$AH)?this._$AA.nextSibling.data=t:this.T(N.createTextNode(t)),this._$AH=t}$(t){let{values:e,_$litType$:i}=t,s=typeof i=="number"?this._$AC(t):(i.el===void 0&&(i.el=W.createElement(zt(i.h,i.h[0]),this.options)),i);if(this._$AH?._$AD===s)this._$AH.p(e);else{let n=new Z(s,this),o=n.u(this.options);n.p(e),this.T(o),this._$AH=n}}_$AC(t){let e=Bt.get(t.strings);return e===void 0&&Bt.set(t.strings,e=new W(t)),e}k(t){_t(this._$AH)||(this._$AH=[],this._$AR());let e=this._$AH,i,s=0;for(let n of t)s===e.length?e.push(i=new r(this.O(Y()),this.O(Y()),this,this.options)):i=e[s],i._$AI(n),s++;s<e.length&&(this._$AR(i&&i._$AB.nextSibling,s),e.length=s)}_$AR(t=this._$AA.nextSibling,e){for(this._$AP?.(!1,!0,e);t!==this._$AB;){let i=Dt(t).nextSibling;Dt(t).remove(),t=i}}setConnected(t){this._$AM===void 0&&(this._$Cv=t,this._$AP?.(t))}},U=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(t,e,i,s,n){this.type=1,this._$AH=g,this._$AN=void 0,this.element=t,this.name=e,this._$AM=s,this.options=n,i.length>2||i[0]!==""||i[1]!==""?(this._$AH=Array(i.length-1).fill(new String),this.strings=i):this._$AH=g}_$AI(t,e=this,i,s){let n=this.strings,o=!1;if(n===void 0)t=P(this,t,e,0),o=!z(t)||t!==this._$AH&&t!==A,o&&(this._$AH=t);else{let c=t,a,p;for(t=n[0],a=0;a<n.length-1;a++)p=P(this,c[i+a],e,a),p===A&&(p=this._$AH[a]),o||=!z(p)||p!==this._$AH[a],p===g?t=g:t!==g&&(t+=(p??"")+n[a+1]),this._$AH[a]=p}o&&!s&&this.j(t)}j(t){t===g?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,t??"")}},X=class extends U{constructor(){super(...arguments),this.type=3}j(t){this.element[this.name]=t===g?void 0:t}},tt=class extends U{constructor(){super(...arguments),this.type=4}j(t){this.element.toggleAttribute(this.name,!!t&&t!==g)}},et=class extends U{constructor(t,e,i,s,n){super(t,e,i,s,n),this.type=5}_$AI(t,e=this){if((t=P(this,t,e,0)??g)===A)return;let i=this._$AH,s=t===g&&i!==g||t.capture!==i.capture||t.once!==i.once||t.passive!==i.passive,n=t!==g&&(i===g||s);s&&this.element.removeEventListener(this.name,this,i),n&&this.element.addEventListener(this.name,this,t),this._$AH=t}handleEvent(t){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,t):this._$AH.handleEvent(t)}},rt=class{constructor(t,e,i){this.element=t,this.type=6,this._$AN=void 0,this._$AM=e,this.options=i}get _$AU(){return this._$AM._$AU}_$AI(t){P(this,t)}},Vt={M:wt,P:S,A:bt,C:1,L:Wt,R:Z,D:qt,V:P,I:D,H:U,N:tt,U:et,B:X,F:rt},ze=yt.litHtmlPolyfillSupport;ze?.(W,D),(yt.litHtmlVersions??=[]).push("3.3.3");var Kt=(r,t,e)=>{let i=e?.renderBefore??t,s=i._$litPart$;if(s===void 0){let n=e?.renderBefore??null;i._$litPart$=s=new D(t.insertBefore(Y(),n),n,void 0,e??{})}return s._$AI(r),s};var xt=globalThis,T=class extends x{constructor(){super(...arguments),this.renderOptions={host:this},this._$Do=void 0}createRenderRoot(){let t=super.createRenderRoot();return this.renderOptions.renderBefore??=t.firstChild,t}update(t){let e=this.render();this.hasUpdated||(this.renderOptions.isConnected=this.isConnected),super.update(t),this._$Do=Kt(e,this.renderRoot,this.renderOptions)}connectedCallback(){super.connectedCallback(),this._$Do?.setConnected(!0)}disconnectedCallback(){super.disconnectedCallback(),this._$Do?.setConnected(!1)}render(){return A}};T._$litElement$=!0,T.finalized=!0,xt.litElementHydrateSupport?.({LitElement:T});var We=xt.litElementPolyfillSupport;We?.({LitElement:T});(xt.litElementVersions??=[]).push("4.2.2");var V=r=>r??g;function k(r,t){try{return globalThis[r]?.getItem(t)??null}catch{return null}}function E(r,t,e){try{globalThis[r]?.setItem(t,e)}catch{}}var Jt="Stalwart-Session",Ft="stalwart-session",Ve="Stalwart-Stream-Ticket",_=class extends Error{constructor(t,e){super(e?.message||`HTTP ${t}`),this.status=t,this.code=e?.error??"",this.body=e}},H=class{constructor(t,e){this.base=String(t??"").replace(/\/+$/,""),this.fetcher=e,this.tickets=new Map}url(t,e=""){return`${this.base}/threads/${encodeURIComponent(t)}${e}`}ticket(t){return this.tickets.get(t)??""}send(t,e){return this.request("POST",t,"/messages",{text:e})}config(){return this.fetchJSON("GET",`${this.base}/config.json`)}interrupts(t){return this.request("GET",t,"/interrupts")}inbox(t={}){let e=Object.entries(t).filter(([,s])=>s!=null&&s!==""),i=new URLSearchParams(e.map(([s,n])=>[s,String(n)])).toString();return this.fetchJSON("GET",`${this.base}/interrupts${i?`?${i}`:""}`)}resume(t,e){return this.request("POST",t,"/resume",e)}feedback(t,e,i){return this.request("POST",t,"/feedback",{message:e,thumb:i})}async request(t,e,i,s){return this.fetchJSON(t,this.url(e,i),s,e)}async fetchJSON(t,e,i,s){let n={Accept:"application/json"},o=k("sessionStorage",Ft);o&&(n[Jt]=o),i!==void 0&&(n["Content-Type"]="application/json");let c=await this.fetcher.call(globalThis,e,{method:t,headers:n,body:i===void 0?void 0:JSON.stringify(i),credentials:"same-origin"}),a=c.headers?.get(Jt);a&&E("sessionStorage",Ft,a);let p=c.headers?.get(Ve);p&&s!==void 0&&this.tickets.set(s,p);let u=Ke(await c.text());if(!c.ok)throw new _(c.status,u);return u}};function Ke(r){try{return r?JSON.parse(r):null}catch{return null}}var Gt=Object.freeze({conversation:"Conversation",placeholder:"Write a message",send:"Send",sending:"Sending\u2026",waiting:"Waiting for your decision",confirmTitle:"Confirm {tool}?",argumentsTitle:"What it will use",origin_typed:"you typed it",origin_reply:"you answered it",origin_context:"from your account",origin_computed:"calculated",origin_model:"the assistant wrote it",origin_result:"from an earlier step",origin_agent:"from another assistant",reasonsTitle:"Why this needs you",irreversible:"Nothing can undo this step once it runs.",approve:"Approve",skip:"Skip this step",cancelAll:"Cancel everything",refused:"Not done",rule:"Rule",showRule:"Which rule?",rollbackTitle:"Undoing what this run did",undone:"Undone",notUndoable:"Could not be undone",stuck:"Undoing {tool} failed. What should happen?",retry:"Try again",doneByHand:"I undid it myself",abandon:"Leave it",unknownTitle:"Did {tool} take effect?",happened:"Yes, it happened",didNotHappen:"No, it did not",delegateTitle:"I couldn't work that out. Shall I pass it to the assistant?",delegateApprove:"Yes, pass it on",decline:"No",reconnecting:"Reconnecting\u2026",traceTitle:"What happened",step:"Step {step}",error:"Something went wrong: {message}",thumbUp:"Helpful",thumbDown:"Not helpful",thumbsNotice:"A rated message is kept to improve the assistant, and nothing else of the conversation.",sources:"Sources",inboxTitle:"Waiting for a decision",inboxEmpty:"Nothing is waiting for a decision.",refresh:"Refresh",loadMore:"Load more",loading:"Loading\u2026",threadTitle:"Thread {thread}",lastWords:"Last words",approvalsNone:"Needs {needed} approvals, none given yet",approvalsGiven:"Approved by {names} ({given} of {needed})",approvalCounted:"Approval counted: {given} of {needed}",answered:"Answered thread {thread}",origin_from:"from {tool}",showSource:"What it came from",sourceTooLarge:"Too large to show here.",approveIrreversible:"Approve \u2014 cannot be undone",answerLabel:"Your answer",reason_write:"It changes something outside this conversation.",reason_argument_origin:"You did not give {arg} yourself: check it.",reason_tainted_call:"It comes after {tool}, whose answer is not trusted.",reason_rule:"A rule asks for a person: {rule}.",reason_missing:"It needs {arg}, which was not given.",reason_unread:"The agent could not read that message.",reason_language:"The agent reads {language} only.",reason_undo_failed:"Undoing it failed: {error}.",reason_outcome_unknown:"It may or may not have happened: {cause}.",resultsTitle:"Results",recordApprove:"You approved: {title}",recordApproval:"You approved, and more approvals are needed: {title}",recordSkip:"You skipped: {title}",recordCancelAll:"Cancelled: {title}",recordAnswer:"You answered {value}: {title}",recordHappened:"You said it happened: {title}",recordDidNotHappen:"You said it did not happen: {title}",recordRetry:"You asked to try undoing again: {title}",recordDoneByHand:"You undid it yourself: {title}",recordAbandon:"You left it: {title}",recordDelegate:"You passed it on to the assistant",recordDecline:"You did not pass it on",recordOther:"You answered {decision}: {title}",recordBy:"by {who}",examplesTitle:"Try",origin_typed_by:"{who} typed it",origin_reply_by:"{who} answered it",origin_context_of:"from {who}\u2019s account",origin_typed_them:"the person who asked typed it",origin_reply_them:"the person who asked answered it",origin_context_them:"from the account of the person who asked",decidesApprover:"Needs an approver from {who}",waitsFor:"Waits for {who} to decide",askedBy:"Asked by {who}, {when}",askedByYou:"You asked, {when}",askedAt:"Asked {when}",reason_rule_failed:"The approver rule {rule} could not be checked; the team running this service has been told.",recordApproveBy:"{who} approved: {title}",recordApprovalBy:"{who} approved, and more approvals are needed: {title}",recordSkipBy:"{who} skipped: {title}",recordCancelAllBy:"{who} cancelled: {title}",recordAnswerBy:"{who} answered {value}: {title}",recordHappenedBy:"{who} said it happened: {title}",recordDidNotHappenBy:"{who} said it did not happen: {title}",recordRetryBy:"{who} asked to try undoing again: {title}",recordDoneByHandBy:"{who} undid it by hand: {title}",recordAbandonBy:"{who} left it: {title}",recordDelegateBy:"{who} passed it on to the assistant",recordDeclineBy:"{who} did not pass it on",recordOtherBy:"{who} answered {decision}: {title}",outcomeTitle:"What happened",outcome_done:"{title}: done",outcome_failed:"{title}: failed",outcome_unknown:"{title}: nobody knows yet whether it happened",outcome_started:"{title}: running",outcome_skipped:"{title}: skipped",outcome_cancelled:"{title}: cancelled",outcomeWaits:"It now waits for another answer.",outcomeCounted:"Your approval is counted; it waits for another person\u2019s before it runs.",linkExpires:"This link answers once, until {when}.",linkSignIn:"To answer, sign in: it waits in your inbox.",linkTaken:"Answer taken",linkUsed:"Already answered",linkUsedBy:"{who} already answered this: {decision}, {when}.",linkUsedAlready:"This was already answered, and this link can no longer be used.",linkExpired:"This link has expired",linkBroken:"This link does not work",linkBrokenText:"It is not a link this service made, or it was changed.",linkSignInTitle:"Sign in to answer",linkNotTaken:"This answer was not taken",linkFailed:"The service failed on this link; its log has the details.",inboxAnswered:"You answered {decision}: {title}"}),I={...Gt},St=new Set;function Je(r){for(let[t,e]of Object.entries(r??{})){if(typeof e!="string")throw new TypeError(`setStrings: the string for "${t}" is not a string`);I[t]=e}for(let t of St)t.requestUpdate()}function Qt(r,t={}){return r.replace(/\{(\w+)\}/g,(e,i)=>t[i]==null?e:String(t[i]))}function l(r,t){return Qt(Object.hasOwn(I,r)?I[r]:r,t)}var it=class{constructor(t){this.host=t,t.addController(this)}hostConnected(){St.add(this.host)}hostDisconnected(){St.delete(this.host)}};var w=class extends T{static get properties(){return{theme:{type:String,reflect:!0}}}constructor(){super(),new it(this)}};var Fe={approve:"recordApprove",skip:"recordSkip",cancel_all:"recordCancelAll",answer:"recordAnswer",happened:"recordHappened",did_not_happen:"recordDidNotHappen",retry:"recordRetry",done_by_hand:"recordDoneByHand",abandon:"recordAbandon",decline:"recordDecline"},Zt="stalwart:none";function At(r){return!r||r.outcome==="refused"||!r.decision?null:{pause:String(r.pause??""),kind:String(r.kind??""),decision:String(r.decision),outcome:String(r.outcome??"taken"),title:String(r.title||r.tool||""),value:r.value,who:Ge(r),mine:Qe(r),at:Ze(r.at)}}function Xt(r){let e=r.kind==="delegate"&&r.decision==="approve"?"recordDelegate":r.outcome==="approval"?"recordApproval":Fe[r.decision]??"recordOther",i=typeof r.value=="string"?r.value:JSON.stringify(r.value),s=!(r.mine??!r.who)&&r.who;return l(s?`${e}By`:e,{title:r.title,value:i,decision:r.decision,who:r.who})}function te(r){let t=new Date(r);return Number.isNaN(t.getTime())?r:t.toLocaleString(void 0,{dateStyle:"medium",timeStyle:"short"})}function Ge(r){let t=r.principal;return t?.iss===Zt?"":String(r.name||r.by||t?.sub||"")}function Qe(r){return typeof r.by_owner=="boolean"?r.by_owner:!r.principal||r.principal.iss===Zt}function Ze(r){return typeof r=="number"?new Date(r*1e3).toISOString():typeof r=="string"&&r?r:new Date().toISOString()}var ee=120;function Xe(r){let t=re(r);return t.length>ee?`${t.slice(0,ee-1)}\u2026`:t}function re(r){return r==null?"":typeof r=="string"?r:Array.isArray(r)?r.map(t=>t&&typeof t=="object"?re(t):String(t)).join("; "):typeof r=="object"?Object.entries(r).filter(([,t])=>t===null||typeof t!="object").map(([t,e])=>`${t}: ${e}`).join(", "):String(r)}function L(r,t=""){return d`<details class="result">
    <summary>${t?d`<span class="label">${t}</span> `:""}<span class="short">${Xe(r)||JSON.stringify(r)}</span></summary>
    <pre class="whole">${JSON.stringify(r,null,2)}</pre>
  </details>`}var tr=["turn","step","pause","answer","run","rollback","recovered"],ie=1e3,er=3e4,rr=2,se=r=>`stalwart-last-event-id:${r}`,st=class{constructor(t){this.options=t,this.delay=ie,this.source=null,this.timer=void 0,this.failures=0,this.stopped=!1}get last(){return k("sessionStorage",se(this.options.thread))??""}start(){let{url:t,open:e}=this.options,i=this.options.ticket(),s=this.last,n=new URLSearchParams;i&&n.set("ticket",i),s&&n.set("last_event_id",s);let o=n.toString(),c=e(o?`${t}?${o}`:t);this.source=c,c.addEventListener("open",()=>this.opened()),c.addEventListener("error",()=>this.failed(c));for(let a of tr)c.addEventListener(a,p=>this.received(a,p))}stop(){this.stopped=!0,clearTimeout(this.timer),this.source?.close(),this.source=null}opened(){this.delay=ie,this.failures=0,this.options.onReconnecting(!1),this.options.onOpen()}failed(t){this.stopped||t!==this.source||(this.failures+=1,t.readyState===rr?(t.close(),this.options.onReconnecting(!0),this.retry()):this.failures>1&&this.options.onReconnecting(!0))}retry(){this.timer=setTimeout(async()=>{try{await this.options.renew()}catch{this.stopped||this.retry();return}this.stopped||this.start()},this.delay),this.delay=Math.min(this.delay*2,er)}received(t,e){let i=e.lastEventId??"",s=this.last;if(/^\d+$/.test(i)&&/^\d+$/.test(s)&&Number(i)<=Number(s))return;i&&E("sessionStorage",se(this.options.thread),i);let n=null;try{n=JSON.parse(e.data)}catch{return}this.options.onEvent(t,n,i)}};var ir=Object.freeze({"--stalwart-bg":"#ffffff","--stalwart-fg":"#1a1a1a","--stalwart-muted":"#595959","--stalwart-line":"#d0d0d0","--stalwart-accent":"#0b57d0","--stalwart-accent-fg":"#ffffff","--stalwart-warn":"#8a4b00","--stalwart-bad":"#b3261e","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"}),ne=Object.freeze({"--stalwart-bg":"#121212","--stalwart-fg":"#f1f1f1","--stalwart-muted":"#bdbdbd","--stalwart-line":"#3c3c3c","--stalwart-accent":"#8ab4f8","--stalwart-accent-fg":"#0b0b0b","--stalwart-warn":"#ffb74d","--stalwart-bad":"#f28b82","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"});function kt(r,t){let e=Object.entries(r).map(([i,s])=>`${i.replace("--stalwart-","--_")}: var(${i}, ${s});`);return`color-scheme: ${t}; ${e.join(" ")}`}var oe=`
:host { ${kt(ir,"light")} }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${kt(ne,"dark")} } }
:host([theme="dark"]) { ${kt(ne,"dark")} }
`;var b=[F(oe),y`
    :host {
      display: block;
      box-sizing: border-box;
      color: var(--_fg);
      background: var(--_bg);
      font-family: var(--_font);
      line-height: 1.4;
    }
    :host([hidden]) {
      display: none;
    }
    *,
    *::before,
    *::after {
      box-sizing: inherit;
    }
    [hidden] {
      display: none !important;
    }
    h2,
    h3 {
      margin: 0 0 calc(var(--_gap) / 2);
      font-size: 1em;
      font-weight: 600;
    }
    p,
    ul,
    ol,
    dl {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    ul,
    ol {
      padding-inline-start: calc(var(--_gap) * 1.5);
    }
    button {
      font: inherit;
      color: var(--_accent-fg);
      background: var(--_accent);
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 3) var(--_gap);
      cursor: pointer;
    }
    button.quiet {
      color: var(--_accent);
      background: var(--_bg);
    }
    button[aria-pressed='true'] {
      color: var(--_accent-fg);
      background: var(--_accent);
    }
    button:disabled {
      cursor: default;
      opacity: 0.6;
    }
    input,
    textarea {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 2);
    }
    :focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    .muted {
      color: var(--_muted);
    }
    .label {
      font-weight: 600;
    }
    details.result summary {
      cursor: pointer;
      overflow-wrap: anywhere;
    }
    details.result pre {
      margin: calc(var(--_gap) / 4) 0 0;
      padding: calc(var(--_gap) / 2);
      max-height: 16em;
      overflow: auto;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-family: ui-monospace, monospace;
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
  `];var ae=[b,y`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    [part='log'] {
      flex: 1 1 auto;
      min-height: 0;
      overflow-y: auto;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    .turn,
    .reply {
      max-width: 85%;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-radius: var(--_radius);
      border: 1px solid var(--_line);
    }
    .turn {
      align-self: flex-end;
      border-color: var(--_accent);
    }
    .reply {
      align-self: flex-start;
    }
    .text {
      margin: 0;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .results {
      list-style: none;
      margin: calc(var(--_gap) / 2) 0 0;
      padding: 0;
    }
    .results .label {
      font-family: ui-monospace, monospace;
    }
    .record {
      align-self: stretch;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
    }
    .record p {
      margin: 0;
    }
    .record .what {
      font-weight: 600;
    }
    .about p {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    .examples {
      list-style: none;
      padding: 0;
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
    }
    textarea:disabled {
      opacity: 0.6;
    }
    [part='thumbs'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      margin-top: calc(var(--_gap) / 2);
    }
    [part='status'].bad {
      color: var(--_bad);
    }
    [part='composer'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      align-items: flex-end;
    }
    textarea {
      flex: 1 1 auto;
      resize: vertical;
    }
    [part='thumbs-notice'] {
      margin: 0;
    }
    summary {
      cursor: pointer;
      color: var(--_accent);
    }
  `];var le="stalwart-thread",ce=200,sr=Object.fromEntries(["entries","waiting","trace","text","sending","deciding","reconnecting","error","about"].map(r=>[r,{state:!0}])),nr=new Set(["pause","answer","run","rollback","recovered"]),nt=class extends w{static get styles(){return ae}static get properties(){return{base:{type:String},thread:{type:String},thumbs:{type:Boolean},eventSource:{attribute:!1},fetcher:{attribute:!1},...sr}}constructor(){super(),this.base="",this.thread="",this.thumbs=!1,this.eventSource=t=>new EventSource(t),this.fetcher=globalThis.fetch,Object.assign(this,{entries:[],waiting:[],trace:[],text:"",sending:!1,deciding:0,reconnecting:!1,error:"",about:null}),this.link=null,this.addEventListener("stalwart-decision",t=>this.decide(t))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.connect()}disconnectedCallback(){super.disconnectedCallback(),this.disconnect()}willUpdate(t){["base","thread","eventSource","fetcher"].some(e=>t.has(e))&&this.connect()}updated(t){(t.has("entries")||t.has("trace"))&&this.keepView(),(t.has("entries")||t.has("waiting"))&&this.scrollLog()}render(){let t=V(this.theme||void 0),e=this.sources(),i=this.waiting.length>0;return d`<slot name="header"></slot>
      <div part="log" role="log" aria-live="polite" aria-label=${l("conversation")} tabindex="0">
        ${this.entries.length||i?"":this.renderAbout()}
        ${this.entries.map(s=>this.renderEntry(s,t))}
        ${this.waiting.map(s=>d`<stalwart-confirm .interrupt=${s} theme=${t}></stalwart-confirm>`)}
      </div>
      <section part="citations" aria-label=${l("sources")} ?hidden=${!e.length}>
        <ul part="sources">
          ${e.map(s=>d`<li>${dr(s)}</li>`)}
        </ul>
      </section>
      <details part="steps">
        <summary>${l("traceTitle")}</summary>
        <stalwart-trace .events=${this.trace} theme=${t}></stalwart-trace>
      </details>
      <div part="status" role="status" class=${this.error?"bad":""}>${this.statusText()}</div>
      <form part="composer" @submit=${this.submit}>
        <textarea
          name="text"
          rows="2"
          aria-label=${l("placeholder")}
          placeholder=${l("placeholder")}
          .value=${this.text}
          ?readonly=${this.sending}
          ?disabled=${i}
          @input=${this.typed}
          @keydown=${this.keydown}
        ></textarea>
        <button type="submit" ?disabled=${this.sending||i}>${l("send")}</button>
      </form>
      <p part="thumbs-notice" class="muted" ?hidden=${!this.thumbs}>${l("thumbsNotice")}</p>
      <slot name="footer"></slot>`}renderEntry(t,e){switch(t.kind){case"turn":return d`<div class="entry turn" data-entry=${t.n} tabindex="-1"><p class="text">${t.text}</p></div>`;case"reply":return d`<div class="entry reply" data-entry=${t.n} data-id=${V(t.id)} tabindex="-1">
          ${t.text?d`<p class="text">${t.text}</p>`:""} ${lr(t.results??[])}
          ${this.thumbs&&t.id?this.renderThumbs(t):""}
        </div>`;case"record":return cr(t);case"refusal":return d`<stalwart-decision
          class="entry"
          data-entry=${t.n}
          tabindex="-1"
          rule=${t.rule??""}
          sentence=${t.sentence??""}
          theme=${e}
        ></stalwart-decision>`;default:return d`<stalwart-rollback class="entry" data-entry=${t.n} tabindex="-1" .report=${t.report} theme=${e}></stalwart-rollback>`}}renderAbout(){let t=this.about;if(!t?.agent)return"";let e=Array.isArray(t.examples)?t.examples.filter(i=>typeof i=="string"):[];return d`<section class="about" aria-labelledby="agent">
      <h2 id="agent">${t.agent}</h2>
      ${t.description?d`<p class="description">${t.description}</p>`:""}
      ${e.length?d`<h3 id="examples">${l("examplesTitle")}</h3>
            <ul class="examples" aria-labelledby="examples">
              ${e.map(i=>d`<li><button type="button" class="quiet example" @click=${()=>this.suggest(i)}>${i}</button></li>`)}
            </ul>`:""}
    </section>`}async suggest(t){this.text=t,await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus()}renderThumbs(t){return d`<div part="thumbs">
      <button type="button" class="quiet" data-thumb="up" aria-pressed=${t.thumb==="up"?"true":"false"} @click=${()=>this.rate(t,"up")}>${l("thumbUp")}</button>
      <button type="button" class="quiet" data-thumb="down" aria-pressed=${t.thumb==="down"?"true":"false"} @click=${()=>this.rate(t,"down")}>${l("thumbDown")}</button>
    </div>`}statusText(){return this.error?l("error",{message:this.error}):this.sending||this.deciding?l("sending"):this.reconnecting?l("reconnecting"):this.waiting.length?l("waiting"):""}sources(){let t=[...this.entries].reverse().find(e=>e.kind==="reply");return Array.isArray(t?.sources)?t.sources:[]}connect(){if(this.disconnect(),!this.isConnected)return;let t=this.thread||pr(),e=new H(this.base,this.fetcher),i={thread:t,client:e,stream:null,epoch:0,reading:!1,again:!1};this.link=i;let s=hr(t);this.entries=s.entries,this.trace=s.trace,this.waiting=[],this.error="",this.reconnecting=!1,this.sending=!1,this.deciding=0,this.refresh(),this.describe(i)}async describe(t){try{let e=await t.client.config();t===this.link&&(this.about=e&&typeof e=="object"?e:null)}catch{t===this.link&&(this.about=null)}}follow(t){if(t!==this.link||t.stream)return;let{client:e,thread:i}=t;t.stream=new st({url:e.url(i,"/stream"),thread:i,ticket:()=>e.ticket(i),renew:()=>e.interrupts(i),open:s=>this.eventSource(s),onEvent:(s,n,o)=>t===this.link&&this.streamed(s,n,o),onOpen:()=>t===this.link&&this.refresh(),onReconnecting:s=>{t===this.link&&(this.reconnecting=s)}});try{t.stream.start()}catch(s){this.fail(s)}}disconnect(){this.link?.stream?.stop(),this.link=null}streamed(t,e,i){t==="step"&&(this.trace=[...this.trace,e].slice(-ce)),t==="answer"&&this.recorded(e,i),nr.has(t)&&this.refresh()}recorded(t,e){let i=At(t);if(!i||e&&this.entries.some(n=>n.kind==="record"&&n.event===e))return;let s=this.entries.find(n=>n.kind==="record"&&!n.event&&n.record?.pause===i.pause&&n.record?.decision===i.decision);s?this.entries=this.entries.map(n=>n===s?{...n,record:i,event:e||"seen"}:n):this.record([{kind:"record",record:i,event:e||"seen"}])}async refresh(){let t=this.link;if(t){if(t.reading||this.deciding){t.again=!0;return}t.reading=!0;try{do{t.again=!1;let e=t.epoch;try{let i=await t.client.interrupts(t.thread);t===this.link&&e===t.epoch&&(this.waiting=Et(this.waiting,i?.waiting)),this.follow(t)}catch(i){t===this.link&&!(i instanceof _&&i.code==="not_found")&&this.fail(i)}}while(t.again&&t===this.link&&!this.deciding)}finally{t.reading=!1}}}submit(t){t.preventDefault(),this.send()}keydown(t){t.key==="Enter"&&!t.shiftKey&&!t.isComposing&&(t.preventDefault(),this.send())}typed(t){this.text=t.target.value}async send(){let t=this.link,e=this.text.trim();if(!t||!e||this.sending||this.waiting.length)return;let i=this.renderRoot.activeElement?.matches("button[type=submit]");this.sending=!0,this.error="";try{let s=await t.client.send(t.thread,e);if(t!==this.link)return;this.text="",this.record([{kind:"turn",text:e}]),this.apply(s),this.follow(t)}catch(s){t===this.link&&this.fail(s)}finally{t===this.link&&(this.sending=!1)}i&&(await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus())}async decide(t){let{interrupt:e,decision:i,value:s}=t.detail??{},n=this.link;if(!n||!e?.id||!i)return;this.deciding+=1,n.epoch+=1,this.error="";let o;try{let a={interrupt_id:e.id,decision:i,token:e.token};s!==void 0&&(a.value=s);let p=await n.client.resume(n.thread,a);if(n!==this.link)return;o=this.apply(p,this.decided(e,i,s,p)),this.follow(n)}catch(a){if(n!==this.link)return;this.fail(a),a instanceof _&&a.code==="interrupt_stale"||(this.waiting=this.waiting.map(u=>u===e?{...u}:u))}finally{n===this.link&&(this.deciding-=1,n.again&&!this.deciding&&this.refresh())}await this.updateComplete,((o===void 0?null:this.renderRoot.querySelector(`[data-entry="${o}"]`))??this.renderRoot.querySelector("[part=log]"))?.focus()}async rate(t,e){let i=this.link;if(!(!i||!t.id))try{await i.client.feedback(i.thread,t.id,e),i===this.link&&(this.entries=this.entries.map(s=>s.n===t.n?{...s,thumb:e}:s))}catch(s){i===this.link&&this.fail(s)}}decided(t,e,i,s){let n=this.entries.some(a=>a.kind==="record"&&a.record?.pause===t.id&&a.record?.decision===e),o=(s?.waiting??[]).some(a=>a.id===t.id),c=At({...t,pause:t.id,decision:e,value:i,outcome:o?"approval":"taken",by:"",principal:null,at:void 0});return n||!c?[]:[{kind:"record",record:c,event:""}]}apply(t,e=[]){let i=[...e],s=t?.refusals??[],n=or(t?.reply?.text??"",s),o=ar(t?.steps);(n||o.length)&&i.push({kind:"reply",id:t.reply?.id,text:n,results:o,sources:t.reply?.sources});for(let c of s)i.push({kind:"refusal",sentence:c.sentence,rule:c.rule??""});return t?.rollback&&i.push({kind:"rollback",report:t.rollback}),this.waiting=Et(this.waiting,t?.waiting),this.record(i)}record(t){if(!t.length)return;let e=(this.entries.at(-1)?.n??0)+1;return this.entries=[...this.entries,...t.map((i,s)=>({...i,n:e+s}))].slice(-ce),e}fail(t){t instanceof _&&t.code==="run_waiting"?this.waiting=Et(this.waiting,t.body?.waiting):t instanceof _&&t.code==="interrupt_stale"?this.refresh():this.error=t instanceof Error?t.message:String(t)}keepView(){this.link&&E("sessionStorage",de(this.link.thread),JSON.stringify({entries:this.entries,trace:this.trace}))}scrollLog(){let t=this.renderRoot.querySelector("[part=log]");t&&(t.scrollTop=t.scrollHeight)}};function Et(r,t){return(t??[]).map(e=>r.find(i=>i.id===e.id&&i.token===e.token)??e)}function or(r,t){let e=r;for(let i of t)i?.sentence&&(e=e.replace(i.sentence,""));return e.replace(/\s{2,}/g," ").trim()}function ar(r){return Array.isArray(r)?r.filter(t=>t?.status==="done"&&t.result!==null&&t.result!==void 0).map(t=>({tool:String(t.tool??""),result:t.result})):[]}function lr(r){return r.length?d`<ul class="results" aria-label=${l("resultsTitle")}>
    ${r.map(t=>d`<li>${L(t.result,t.tool)}</li>`)}
  </ul>`:""}function cr(r){let t=r.record;return t?d`<div class="entry record" data-entry=${r.n} data-decision=${t.decision} data-outcome=${t.outcome} tabindex="-1">
    <p class="what">${Xt(t)}</p>
    <p class="meta muted"><time datetime=${t.at}>${te(t.at)}</time></p>
  </div>`:""}function dr(r){if(r&&typeof r=="object"){let{title:t,url:e}=r;return String(t??e??JSON.stringify(r))}return String(r)}var de=r=>`stalwart-view:${r}`;function hr(r){try{let t=JSON.parse(k("sessionStorage",de(r))??"{}");return{entries:Array.isArray(t.entries)?t.entries:[],trace:Array.isArray(t.trace)?t.trace:[]}}catch{return{entries:[],trace:[]}}}function pr(){let r=k("localStorage",le);return r||(r=ur(),E("localStorage",le,r)),r}function ur(){if(typeof crypto.randomUUID=="function")return crypto.randomUUID();let r=crypto.getRandomValues(new Uint8Array(16));r[6]=r[6]&15|64,r[8]=r[8]&63|128;let t=[...r].map(e=>e.toString(16).padStart(2,"0")).join("");return`${t.slice(0,8)}-${t.slice(8,12)}-${t.slice(12,16)}-${t.slice(16,20)}-${t.slice(20)}`}var he={typed:"origin_typed",reply:"origin_reply",context:"origin_context",computed:"origin_computed",model:"origin_model",result:"origin_result",agent:"origin_agent"};function fr(r){let t=String(r??"").split(":")[0];return Object.hasOwn(he,t)?he[t]:void 0}function pe(r){let t=fr(r);return t?l(t):String(r??"")}function ue(r,t=e=>e){let e=String(r??""),[i,...s]=e.split(":"),n=`reason_${i.trim()}`;if(!Object.hasOwn(I,n))return e;let o=s.join(":").trim();return l(n,{arg:t(o),tool:o.replace(/^untrusted:/,""),rule:o,language:mr(o),error:o,cause:o})}function mr(r){try{let t=globalThis.document?.documentElement?.lang||void 0;return new Intl.DisplayNames(t?[t]:void 0,{type:"language"}).of(r)??r}catch{return r}}var fe=[b,y`
    [part='confirm'] {
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    [part='turn'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: var(--_gap);
      border-inline-start: 4px solid var(--_line);
    }
    dl {
      display: grid;
      grid-template-columns: max-content auto auto;
      gap: calc(var(--_gap) / 4) var(--_gap);
    }
    dt {
      font-weight: 600;
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .value,
    .tool {
      font-family: ui-monospace, monospace;
    }
    [part='irreversible'] {
      color: var(--_warn);
      font-weight: 600;
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_warn);
    }
    button.irreversible {
      background: var(--_warn);
      border-color: var(--_warn);
    }
    dt {
      grid-column: 1;
    }
    .too-large {
      font-style: italic;
    }
    [part='choices'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      margin: 0;
    }
    [part='choices'] label {
      flex: 1 1 100%;
      font-weight: 600;
    }
    [part='choices'] input {
      flex: 1 1 12em;
    }
    @media (max-width: 480px) {
      dl {
        grid-template-columns: max-content auto;
      }
      dd.origin {
        grid-column: 2;
      }
    }
  `];var me={approve:"approve",skip:"skip",cancel_all:"cancelAll",happened:"happened",did_not_happen:"didNotHappen",retry:"retry",done_by_hand:"doneByHand",abandon:"abandon",answer:"send",decline:"decline"},ge={confirm:"confirmTitle",outcome_unknown:"unknownTitle",saga_stuck:"stuck",delegate:"delegateTitle"},gr={chosen:{state:!0}},ot=class extends w{static get styles(){return fe}static get properties(){return{interrupt:{attribute:!1},...gr}}constructor(){super(),this.interrupt=null,this.chosen=""}willUpdate(t){t.has("interrupt")&&(this.chosen="")}render(){let t=this.interrupt;if(!t)return d``;let e=t.kind,i=$r(t);return d`<section part="confirm" aria-labelledby="title" data-kind=${e}>
      ${t.irreversible?d`<p part="irreversible">${l("irreversible")}</p>`:""}
      <h2 id="title" data-title=${t.title??""}>${i}</h2>
      ${e==="confirm"&&t.question&&t.question!==`${i}?`?d`<p class="question">${t.question}</p>`:""}
      ${e==="delegate"?d`<blockquote part="turn">${$e(t.turn)}</blockquote>`:""}
      ${this.renderArguments(t.arguments??[])} ${this.renderReasons(t.reasons??[],t.arguments??[])}
      ${e==="saga_stuck"?this.renderPending(t.pending??[]):""}
      ${e==="ask"?this.renderAsk():this.renderChoices(t)}
    </section>`}renderArguments(t){return t.length?d`<div part="arguments">
      <h3>${l("argumentsTitle")}</h3>
      <dl>
        ${t.map(e=>d`<dt data-name=${e.name} title=${e.name}>${e.label||e.name}</dt>
            <dd class="value">${$e(e.value)}</dd>
            <dd class="origin muted" data-origin=${e.origin??""}>${wr(e)}</dd>`)}
      </dl>
    </div>`:""}renderReasons(t,e){if(!t.length)return"";let i=s=>e.find(n=>n.name===s)?.label||s;return d`<div part="reasons">
      <h3>${l("reasonsTitle")}</h3>
      <ul>
        ${t.map(s=>d`<li data-reason=${s} title=${s}>${ue(s,i)}</li>`)}
      </ul>
    </div>`}renderPending(t){return t.length?d`<ul class="pending">
      ${t.map(e=>d`<li>${l("step",{step:e.step})} <span class="tool">${e.tool}</span></li>`)}
    </ul>`:""}renderChoices(t){return d`<div part="choices">
      ${(t.answers??[]).map((e,i)=>d`<button
          type="button"
          class=${i?"quiet":t.irreversible&&e==="approve"?"irreversible":""}
          data-answer=${e}
          ?disabled=${!!this.chosen}
          @click=${()=>this.decide(e)}
        >${yr(t,e)}</button>`)}
    </div>`}renderAsk(){return d`<form part="choices" @submit=${this.submitAnswer}>
      <label for="value">${l("answerLabel")}</label>
      <input id="value" name="value" type="text" autocomplete="off" aria-describedby="title" ?readonly=${!!this.chosen} />
      <button type="submit" data-answer="answer" ?disabled=${!!this.chosen}>${l("send")}</button>
    </form>`}submitAnswer(t){t.preventDefault();let i=t.currentTarget.elements.namedItem("value").value;i.trim()&&this.decide("answer",i)}decide(t,e){if(this.chosen||!this.interrupt)return;this.chosen=t;let i=e===void 0?{interrupt:this.interrupt,decision:t}:{interrupt:this.interrupt,decision:t,value:e};this.dispatchEvent(new CustomEvent("stalwart-decision",{bubbles:!0,composed:!0,detail:i}))}};function $r(r){if(r.kind==="ask")return r.prompt||r.question||"";let t=r.title||r.tool;return r.kind==="confirm"&&r.title&&r.title!==r.tool?r.title:Object.hasOwn(ge,r.kind)?l(ge[r.kind],{tool:t}):r.question||r.kind}function yr(r,t){return r.kind==="delegate"&&t==="approve"?l("delegateApprove"):r.irreversible&&t==="approve"?l("approveIrreversible"):Object.hasOwn(me,t)?l(me[t]):t}function wr(r){let t=r.source;if(!t?.tool)return pe(r.origin);let e=l("origin_from",{tool:t.tool});return t.truncated?d`${e} <span class="too-large">${l("sourceTooLarge")}</span>`:Object.hasOwn(t,"value")?d`${e} ${L(t.value,l("showSource"))}`:e}function $e(r){return typeof r=="string"?r:JSON.stringify(r)}var ye=[b,y`
    [part='decision'] {
      border-inline-start: 4px solid var(--_bad);
      padding: calc(var(--_gap) / 2) var(--_gap);
    }
    .refused {
      color: var(--_bad);
    }
    [part='rule'] {
      margin-top: calc(var(--_gap) / 2);
    }
    .rule {
      font-family: ui-monospace, monospace;
      overflow-wrap: anywhere;
    }
  `];var br={open:{state:!0}},at=class extends w{static get styles(){return ye}static get properties(){return{rule:{type:String},sentence:{type:String},...br}}constructor(){super(),this.rule="",this.sentence="",this.open=!1}render(){return d`<div part="decision">
      <p><span class="label refused">${l("refused")}</span> <span class="sentence">${this.sentence}</span></p>
      ${this.rule?d`<button type="button" class="quiet" aria-expanded=${this.open?"true":"false"} aria-controls="rule" @click=${this.toggle}>${l("showRule")}</button>
            <div id="rule" part="rule" ?hidden=${!this.open}>
              <span class="label">${l("rule")}</span> <span class="rule">${this.rule}</span>
            </div>`:""}
    </div>`}toggle(){this.open=!this.open}};var we={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},be=r=>(...t)=>({_$litDirective$:r,values:t}),lt=class{constructor(t){}get _$AU(){return this._$AM._$AU}_$AT(t,e,i){this._$Ct=t,this._$AM=e,this._$Ci=i}_$AS(t,e){return this.update(t,e)}update(t,e){return this.render(...e)}};var{I:_r}=Vt,_e=r=>r;var ve=()=>document.createComment(""),M=(r,t,e)=>{let i=r._$AA.parentNode,s=t===void 0?r._$AB:t._$AA;if(e===void 0){let n=i.insertBefore(ve(),s),o=i.insertBefore(ve(),s);e=new _r(n,o,r,r.options)}else{let n=e._$AB.nextSibling,o=e._$AM,c=o!==r;if(c){let a;e._$AQ?.(r),e._$AM=r,e._$AP!==void 0&&(a=r._$AU)!==o._$AU&&e._$AP(a)}if(n!==s||c){let a=e._$AA;for(;a!==n;){let p=_e(a).nextSibling;_e(i).insertBefore(a,s),a=p}}}return e},C=(r,t,e=r)=>(r._$AI(t,e),r),vr={},xe=(r,t=vr)=>r._$AH=t,Se=r=>r._$AH,ct=r=>{r._$AR(),r._$AA.remove()};var Ae=(r,t,e)=>{let i=new Map;for(let s=t;s<=e;s++)i.set(r[s],s);return i},ke=be(class extends lt{constructor(r){if(super(r),r.type!==we.CHILD)throw Error("repeat() can only be used in text expressions")}dt(r,t,e){let i;e===void 0?e=t:t!==void 0&&(i=t);let s=[],n=[],o=0;for(let c of r)s[o]=i?i(c,o):o,n[o]=e(c,o),o++;return{values:n,keys:s}}render(r,t,e){return this.dt(r,t,e).values}update(r,[t,e,i]){let s=Se(r),{values:n,keys:o}=this.dt(t,e,i);if(!Array.isArray(s))return this.ut=o,n;let c=this.ut??=[],a=[],p,u,h=0,m=s.length-1,f=0,$=n.length-1;for(;h<=m&&f<=$;)if(s[h]===null)h++;else if(s[m]===null)m--;else if(c[h]===o[f])a[f]=C(s[h],n[f]),h++,f++;else if(c[m]===o[$])a[$]=C(s[m],n[$]),m--,$--;else if(c[h]===o[$])a[$]=C(s[h],n[$]),M(r,a[$+1],s[h]),h++,$--;else if(c[m]===o[f])a[f]=C(s[m],n[f]),M(r,s[h],s[m]),m--,f++;else if(p===void 0&&(p=Ae(o,f,$),u=Ae(c,h,m)),p.has(c[h]))if(p.has(c[m])){let v=u.get(o[f]),ut=v!==void 0?s[v]:null;if(ut===null){let Ct=M(r,s[h]);C(Ct,n[f]),a[f]=Ct}else a[f]=C(ut,n[f]),M(r,s[h],ut),s[v]=null;f++}else ct(s[m]),m--;else ct(s[h]),h++;for(;f<=$;){let v=M(r,a[$+1]);C(v,n[f]),a[f++]=v}for(;h<=m;){let v=s[h++];v!==null&&ct(v)}return this.ut=o,xe(r,a),A}});var Ee=[b,y`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    .bar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: calc(var(--_gap) / 2);
    }
    [part='title'],
    [part='empty'] {
      margin: 0;
    }
    [part='status'].bad,
    [part='row-error'] {
      color: var(--_bad);
    }
    [part='list'] {
      list-style: none;
      margin: 0;
      padding: 0;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    [part='row'] {
      display: flex;
      flex-direction: column;
      gap: calc(var(--_gap) / 2);
      padding: var(--_gap);
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
    [part='row'] p {
      margin: 0;
    }
    [part='thread'] {
      font-family: ui-monospace, monospace;
      overflow-wrap: anywhere;
    }
    [part='last-words'] q {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    [part='approvals'] {
      color: var(--_muted);
    }
    [part='more'] {
      align-self: flex-start;
    }
  `];var xr=Object.fromEntries(["rows","next","loaded","loading","error","notice","failed"].map(r=>[r,{state:!0}])),Sr=["base","kind","tool","pageSize","fetcher"],Ar=50,kr=4,dt=class extends w{static get styles(){return Ee}static get properties(){return{base:{type:String},kind:{type:String},tool:{type:String},pageSize:{type:Number,attribute:"page-size"},fetcher:{attribute:!1},...xr}}constructor(){super(),this.base="",this.kind="",this.tool="",this.pageSize=Ar,this.fetcher=globalThis.fetch,Object.assign(this,{rows:[],next:"",loaded:!1,loading:!1,error:"",notice:"",failed:{}}),this.client=null,this.epoch=0,this.addEventListener("stalwart-decision",t=>this.decide(t))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.refresh()}disconnectedCallback(){super.disconnectedCallback(),this.epoch+=1}willUpdate(t){Sr.some(e=>t.has(e))&&(this.client=new H(this.base,this.fetcher),Object.assign(this,{rows:[],next:"",loaded:!1,failed:{}}),this.isConnected&&this.refresh())}render(){let t=V(this.theme||void 0);return d`<div class="bar">
        <h2 id="title" part="title">${l("inboxTitle")}</h2>
        <button type="button" part="refresh" class="quiet" ?disabled=${this.loading} @click=${this.refresh}>${l("refresh")}</button>
      </div>
      <div part="status" role="status" class=${this.error?"bad":""}>${this.statusText()}</div>
      <p part="empty" class="muted" tabindex="-1" ?hidden=${!this.loaded||this.rows.length>0||!!this.next}>${l("inboxEmpty")}</p>
      <ul part="list" role="list" aria-labelledby="title" ?hidden=${!this.rows.length}>
        ${ke(this.rows,e=>e.id,(e,i)=>this.renderRow(e,i,t))}
      </ul>
      <button type="button" part="more" class="quiet" ?hidden=${!this.next} ?disabled=${this.loading} @click=${this.more}>${l("loadMore")}</button>`}renderRow(t,e,i){let s=this.failed[t.id];return d`<li part="row" class="row" data-id=${t.id} tabindex="-1" aria-labelledby=${`thread-${e}`}>
      <p part="thread" id=${`thread-${e}`}>${l("threadTitle",{thread:t.thread})}</p>
      ${t.turn&&t.kind!=="delegate"?d`<p part="last-words"><span class="label">${l("lastWords")}</span> <q>${t.turn}</q></p>`:""}
      ${t.approvals?d`<p part="approvals">${Er(t.approvals)}</p>`:""}
      ${s?d`<p part="row-error" role="alert">${l("error",{message:s})}</p>`:""}
      <stalwart-confirm .interrupt=${t} theme=${i}></stalwart-confirm>
    </li>`}statusText(){return this.error?l("error",{message:this.error}):this.loading?l("loading"):this.notice}refresh(){return this.read("")}async more(){if(!this.next)return;let t=this.rows.length,e=this.renderRoot.activeElement?.matches("[part=more]");await this.read(this.next),e&&this.rows.length>t&&this.focusRow(t)}async read(t){let e=this.client;if(!e||t&&this.loading)return;let i=t?this.epoch:++this.epoch;this.loading=!0,this.error="",t||(this.notice="");try{let s=await e.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:t});for(let o=0;o<kr&&!s?.waiting?.length&&s?.next;o+=1){if(i!==this.epoch)return;s=await e.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:s.next})}if(i!==this.epoch)return;let n=Array.isArray(s?.waiting)?s.waiting:[];t?this.rows=[...this.rows,...n.filter(o=>!this.rows.some(c=>c.id===o.id))]:(this.rows=n,this.failed={}),this.next=s?.next||"",this.loaded=!0}catch(s){i===this.epoch&&(this.error=Te(s))}finally{i===this.epoch&&(this.loading=!1)}}async decide(t){let{interrupt:e,decision:i,value:s}=t.detail??{},n=this.client;if(!n||!e?.id||!i)return;let o=this.epoch,c={interrupt_id:e.id,decision:i,token:e.token};s!==void 0&&(c.value=s),this.failed=Ce(this.failed,e.id);try{let a=await n.resume(e.thread,c);if(o!==this.epoch)return;let p=(a?.waiting??[]).find(u=>u.id===e.id);p?this.counted({...e,...p}):this.answered(e)}catch(a){if(o!==this.epoch)return;this.failed={...this.failed,[e.id]:Te(a)},a instanceof _&&a.code==="interrupt_stale"||(this.rows=this.rows.map(h=>h===e?{...h}:h));let u=this.rows.findIndex(h=>h.id===e.id);u>=0&&this.focusRow(u)}}counted(t){this.rows=this.rows.map(i=>i.id===t.id?t:i);let e=t.approvals;this.notice=e?l("approvalCounted",{given:e.given?.length??0,needed:e.needed}):"",this.focusRow(this.rows.indexOf(t))}answered(t){let e=this.rows.findIndex(i=>i.id===t.id);this.rows=this.rows.filter(i=>i.id!==t.id),this.failed=Ce(this.failed,t.id),this.notice=l("answered",{thread:t.thread}),this.focusRow(Math.min(e,this.rows.length-1))}async focusRow(t){await this.updateComplete;let e=this.renderRoot.querySelectorAll("[part=row]"),i=this.next?this.renderRoot.querySelector("[part=more]"):null;(e[t]??e[e.length-1]??i??this.renderRoot.querySelector("[part=empty]"))?.focus()}};function Er(r){let t=r.given??[];if(!t.length)return l("approvalsNone",{needed:r.needed});let e=t.map(i=>i.by||i.principal?.sub||"").join(", ");return l("approvalsGiven",{names:e,given:t.length,needed:r.needed})}function Te(r){return r instanceof Error?r.message:String(r)}function Ce(r,t){if(!Object.hasOwn(r,t))return r;let e={...r};return delete e[t],e}var Oe=[b,y`
    [part='rollback'] {
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    .not-undone .label {
      color: var(--_bad);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
  `];var ht=class extends w{static get styles(){return Oe}static get properties(){return{report:{attribute:!1}}}constructor(){super(),this.report=null}render(){let t=this.report?.undone??[],e=this.report?.not_undone??[];return d`<section part="rollback" aria-labelledby="title" ?hidden=${!this.report}>
      <h2 id="title">${l("rollbackTitle")}</h2>
      ${t.length?d`<ul class="undone">
            ${t.map(i=>Re(l("undone"),i,i.by==="person"?i.by:""))}
          </ul>`:""}
      ${e.length?d`<ul class="not-undone">
            ${e.map(i=>Re(l("notUndoable"),i,i.why))}
          </ul>`:""}
    </section>`}};function Re(r,t,e){return d`<li>
    <span class="label">${r}</span> <span class="tool">${t.tool}</span>
    ${e?d` <span class="muted">(${e})</span>`:""}
  </li>`}var Ne=[b,y`
    [part='trace'] {
      padding: calc(var(--_gap) / 2) 0;
    }
    ol {
      list-style: none;
      padding: 0;
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      padding: calc(var(--_gap) / 4) 0;
      border-bottom: 1px solid var(--_line);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
    details.result {
      flex: 1 1 100%;
    }
  `];var pt=class extends w{static get styles(){return Ne}static get properties(){return{events:{attribute:!1}}}constructor(){super(),this.events=[]}render(){let t=(this.events??[]).filter(e=>e&&e.tool&&(e.type??"step")==="step");return d`<section part="trace" aria-labelledby="title">
      <h2 id="title">${l("traceTitle")}</h2>
      <ol>
        ${t.map(e=>d`<li>
            <span class="step">${l("step",{step:Tr(e)})}</span>
            <span class="tool">${e.tool}</span>
            <span class="status muted">${e.status??""}</span>
            ${e.result===null||e.result===void 0?"":L(e.result)}
          </li>`)}
      </ol>
    </section>`}};function Tr(r){return r.key!=null?r.key:r.call!=null?`${r.step}.${r.call}`:r.step}var Pe="stalwart-access-token",Cr='stalwart-chat[data-signin="fragment"], stalwart-inbox[data-signin="fragment"]';function Ue(r){let t=Or()||k("sessionStorage",Pe)||"";return t&&(r.fetcher=Rr(r.fetcher,t)),t}function Tt(r){let t=r.querySelectorAll(Cr);for(let e of t)Ue(e)}function Or(){let r=new URLSearchParams(location.hash.slice(1)).get("access_token");return r?(E("sessionStorage",Pe,r),history.replaceState(history.state,"",location.pathname+location.search),r):""}function Rr(r,t){return(e,i={})=>{let s=new Headers(i.headers);return s.set("Authorization",`Bearer ${t}`),r.call(globalThis,e,{...i,headers:s})}}customElements.get("stalwart-chat")||customElements.define("stalwart-chat",nt);customElements.get("stalwart-confirm")||customElements.define("stalwart-confirm",ot);customElements.get("stalwart-decision")||customElements.define("stalwart-decision",at);customElements.get("stalwart-rollback")||customElements.define("stalwart-rollback",ht);customElements.get("stalwart-trace")||customElements.define("stalwart-trace",pt);customElements.get("stalwart-inbox")||customElements.define("stalwart-inbox",dt);document.readyState==="loading"?document.addEventListener("DOMContentLoaded",()=>Tt(document),{once:!0}):Tt(document);export{nt as StalwartChat,ot as StalwartConfirm,at as StalwartDecision,dt as StalwartInbox,ht as StalwartRollback,pt as StalwartTrace,Qt as format,Je as setStrings,Gt as shipped,Ue as signInFromFragment,I as strings};
/*! Bundled license information:

@lit/reactive-element/css-tag.js:
  (**
   * @license
   * Copyright 2019 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

@lit/reactive-element/reactive-element.js:
lit-html/lit-html.js:
lit-element/lit-element.js:
lit-html/directive.js:
lit-html/directives/repeat.js:
  (**
   * @license
   * Copyright 2017 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/is-server.js:
  (**
   * @license
   * Copyright 2022 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/directives/if-defined.js:
  (**
   * @license
   * Copyright 2018 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/directive-helpers.js:
  (**
   * @license
   * Copyright 2020 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)
*/
